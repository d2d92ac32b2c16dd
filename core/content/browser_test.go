package content_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

func TestCheckOptions(t *testing.T) {
	many := make([]content.ActionInput, content.MaxActions+1)
	for i := range many {
		many[i] = content.ActionInput{Type: "wait", Milliseconds: 1}
	}
	cases := []struct {
		name  string
		in    content.Options
		field string // "" when valid
	}{
		{"nothing", content.Options{}, ""},
		{"every format", content.Options{Formats: []string{"markdown", "HTML", "links", "images", "screenshot_full"}}, ""},
		{"unknown format", content.Options{Formats: []string{"pdf"}}, "formats"},
		{"both screenshots", content.Options{Formats: []string{"screenshot", "screenshot_full"}}, "formats"},
		{"fifty actions", content.Options{Actions: many[:content.MaxActions]}, ""},
		{"fifty-one actions", content.Options{Actions: many}, "actions"},
		{"unknown action", content.Options{Actions: []content.ActionInput{{Type: "wait", Milliseconds: 5}, {Type: "hover"}}}, "actions[1].type"},
		{"wait without anything", content.Options{Actions: []content.ActionInput{{Type: "wait"}}}, "actions[0].milliseconds"},
		{"wait too long", content.Options{Actions: []content.ActionInput{{Type: "wait", Milliseconds: 30001}}}, "actions[0].milliseconds"},
		{"wait for both", content.Options{Actions: []content.ActionInput{{Type: "wait", Milliseconds: 5, Selector: "#a"}}}, "actions[0].milliseconds"},
		{"wait for a selector", content.Options{Actions: []content.ActionInput{{Type: "wait", Selector: "#a"}}}, ""},
		{"click without selector", content.Options{Actions: []content.ActionInput{{Type: "click"}}}, "actions[0].selector"},
		{"type without text", content.Options{Actions: []content.ActionInput{{Type: "type", Selector: "#q"}}}, "actions[0].text"},
		{"press a named key", content.Options{Actions: []content.ActionInput{{Type: "press", Key: "Enter"}}}, ""},
		{"press one character", content.Options{Actions: []content.ActionInput{{Type: "press", Key: "é"}}}, ""},
		{"press an unknown key", content.Options{Actions: []content.ActionInput{{Type: "press", Key: "Hyper"}}}, "actions[0].key"},
		{"scroll sideways", content.Options{Actions: []content.ActionInput{{Type: "scroll", Direction: "left"}}}, "actions[0].direction"},
		{"scroll to a selector", content.Options{Actions: []content.ActionInput{{Type: "scroll", Selector: "footer"}}}, ""},
		{"scroll nowhere", content.Options{Actions: []content.ActionInput{{Type: "scroll"}}}, "actions[0].direction"},
		{"execute nothing", content.Options{Actions: []content.ActionInput{{Type: "execute", Script: "  "}}}, "actions[0].script"},
		{"selector too long", content.Options{Actions: []content.ActionInput{{Type: "click", Selector: strings.Repeat("a", 501)}}}, "actions[0].selector"},
		{"device", content.Options{Device: "tablet"}, "device"},
		{"mobile", content.Options{Device: "Mobile"}, ""},
		{"locale", content.Options{Locale: "de_DE"}, "locale"},
		{"header", content.Options{Headers: map[string]string{"X-Trace": "1"}}, ""},
		{"host header", content.Options{Headers: map[string]string{"host": "intranet"}}, "headers.host"},
		{"cookie header", content.Options{Headers: map[string]string{"Cookie": "a=b"}}, "headers.Cookie"},
		{"header with a newline", content.Options{Headers: map[string]string{"X-A": "1\r\nHost: x"}}, "headers.X-A"},
		{"header name", content.Options{Headers: map[string]string{"X A": "1"}}, "headers.X A"},
		{"cookie", content.Options{Cookies: map[string]string{"session": "abc"}}, ""},
		{"cookie with a semicolon", content.Options{Cookies: map[string]string{"session": "a; admin=1"}}, "cookies.session"},
		{"country in the pool", content.Options{Country: "de"}, ""},
		{"country outside the pool", content.Options{Country: "FR"}, "country"},
		{"not a country", content.Options{Country: "DEU"}, "country"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := content.CheckOptions(c.in, []string{"DE", "US"})
			if c.field == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !failure.Is(err, failure.Invalid) || !reflect.DeepEqual(failure.FieldNames(err), []string{c.field}) {
				t.Fatalf("err = %v, fields %v, want 422 on %s", err, failure.FieldNames(err), c.field)
			}
		})
	}
}

func TestCheckOptionsPlan(t *testing.T) {
	p, err := content.CheckOptions(content.Options{
		Formats: []string{"links", "screenshot_full"},
		Actions: []content.ActionInput{{Type: "Click", Selector: " #more "}, {Type: "scroll", Direction: "Bottom"}},
		Device:  "mobile", Locale: "de-DE", Country: "us",
		Headers: map[string]string{"x-trace": "1"}, Cookies: map[string]string{"b": "2", "a": "1"},
	}, []string{"US"})
	if err != nil {
		t.Fatal(err)
	}
	want := content.Plan{Links: true, Shot: ports.ShotFull,
		Actions: []ports.Action{{Kind: ports.ActionClick, Selector: "#more"}, {Kind: ports.ActionScroll, Direction: "bottom"}},
		Page: ports.PageOptions{Device: "mobile", Locale: "de-DE", TimeZone: "Europe/Berlin", Country: "US",
			Headers: map[string]string{"X-Trace": "1"}, Cookies: []ports.Cookie{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}}}}
	if !reflect.DeepEqual(p, want) {
		t.Fatalf("plan = %+v\nwant   %+v", p, want)
	}
	if !p.NeedsBrowser() {
		t.Error("a screenshot needs the browser")
	}
}

func TestTimeZone(t *testing.T) {
	for in, want := range map[string]string{"de-DE": "Europe/Berlin", "en-GB": "Europe/London", "ja": "Asia/Tokyo", "pt-BR": "America/Sao_Paulo", "zh-Hant-TW": "Asia/Taipei", "xx": ""} {
		if got := content.TimeZone(in); got != want {
			t.Errorf("TimeZone(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestActionFailed(t *testing.T) {
	err := content.ActionFailed(&ports.ActionError{Index: 3, Kind: ports.ActionClick, Failure: ports.ActionNotFound, Selector: "#more", Within: 10 * time.Second})
	if !failure.Is(err, failure.Invalid) || failure.Public(err, "") != `actions[3]: selector "#more" not found within 10s` || failure.FieldNames(err)[0] != "actions[3]" {
		t.Fatalf("not found: %v %q %v", err, failure.Public(err, ""), failure.FieldNames(err))
	}
	err = content.ActionFailed(&ports.ActionError{Index: 0, Kind: ports.ActionExecute, Failure: ports.ActionScriptFail, Err: errors.New("Error: no tide\n    at <anonymous>:2:7")})
	if !failure.Is(err, failure.Invalid) || failure.Public(err, "") != "actions[0]: the script failed: Error: no tide" {
		t.Fatalf("script: %q", failure.Public(err, ""))
	}
	err = content.ActionFailed(&ports.ActionError{Index: 7, Failure: ports.ActionBudget, Within: 30 * time.Second})
	if !failure.Is(err, failure.Unavailable) || !strings.Contains(failure.Public(err, ""), "actions[7]") {
		t.Fatalf("budget: %v", err)
	}
	plain := errors.New("other")
	if content.ActionFailed(plain) != plain || content.ActionFailed(nil) != nil {
		t.Fatal("other errors pass through")
	}
}

func TestLinksAndImages(t *testing.T) {
	doc := []byte(`<html><head><base href="/docs/"></head><body>
<a href="intro#top">Intro <b>page</b></a> <a href="intro">Intro again</a> <a href="">self</a>
<a href="javascript:void(0)">js</a> <a href="mailto:a@b.c">mail</a> <a href="https://other.example/x?a=1"><img src="logo.png" alt="Other site"></a>
<a href="//cdn.example/y">   spaced
   text </a> <a>no href</a>
<img src="data:image/gif;base64,R0lGOD" data-src="/lazy.jpg" alt="Lazy"> <img src="/a.png"> <img src="/a.png" alt="A again"> <img src="ftp://x/y.png">
</body></html>`)
	links := content.Links("https://site.example/page", doc)
	wantLinks := []content.Link{
		{URL: "https://site.example/docs/intro", Text: "Intro page"},
		{URL: "https://other.example/x?a=1", Text: "Other site"},
		{URL: "https://cdn.example/y", Text: "spaced text"},
	}
	if !reflect.DeepEqual(links, wantLinks) {
		t.Errorf("links = %+v", links)
	}
	images := content.Images("https://site.example/page", doc)
	wantImages := []content.Image{
		{URL: "https://site.example/docs/logo.png", Alt: "Other site"},
		{URL: "https://site.example/lazy.jpg", Alt: "Lazy"},
		{URL: "https://site.example/a.png", Alt: "A again"},
	}
	if !reflect.DeepEqual(images, wantImages) {
		t.Errorf("images = %+v", images)
	}
	if l := content.Links("https://site.example/", []byte("<p>none</p>")); l == nil || len(l) != 0 {
		t.Errorf("no links = %#v, want an empty list", l)
	}
	// Both from one parse: the same lists; what was not asked is nil.
	bl, bi := content.LinksAndImages("https://site.example/page", doc, true, true)
	if !reflect.DeepEqual(bl, wantLinks) || !reflect.DeepEqual(bi, wantImages) {
		t.Errorf("links and images = %+v, %+v", bl, bi)
	}
	if ol, oi := content.LinksAndImages("https://site.example/page", doc, true, false); !reflect.DeepEqual(ol, wantLinks) || oi != nil {
		t.Errorf("links only = %+v, %+v", ol, oi)
	}
	if ol, oi := content.LinksAndImages("https://site.example/page", doc, false, true); ol != nil || !reflect.DeepEqual(oi, wantImages) {
		t.Errorf("images only = %+v, %+v", ol, oi)
	}
	// The first attribute of a name counts, as a browser reads it; a
	// namespaced one (of SVG's xlink) is not the element's href.
	dup := []byte(`<a href="/one" href="/two">x</a><svg><a xlink:href="/svg">s</a></svg><img src="/i.png" src="/j.png" alt="first" alt="second">`)
	dl, di := content.LinksAndImages("https://site.example/", dup, true, true)
	if want := []content.Link{{URL: "https://site.example/one", Text: "x"}}; !reflect.DeepEqual(dl, want) {
		t.Errorf("duplicate attributes: links = %+v", dl)
	}
	if want := []content.Image{{URL: "https://site.example/i.png", Alt: "first"}}; !reflect.DeepEqual(di, want) {
		t.Errorf("duplicate attributes: images = %+v", di)
	}
}
