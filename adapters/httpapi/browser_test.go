package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestContentFormatsAndOptions(t *testing.T) {
	e, tok, site := pagesEnv(t)
	site.Handle("/linked", "text/html", `<html><body><article><h1>Linked</h1><p>`+strings.Repeat("A paragraph of plain words about the harbour. ", 10)+`</p>
<p><a href="/tide-pools#x">Tide <em>pools</em></a> <a href="/tide-pools">again</a> <img src="/a.png" alt="A boat"></p></article></body></html>`)
	before := balance(t, e, tok)
	r := e.Do("GET", "/v1/content?url=http://news.test/linked&formats=links,images", tok, nil)
	if r.Status != 200 {
		t.Fatalf("GET = %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	links, _ := m["links"].([]any)
	if len(links) != 1 || links[0].(map[string]any)["url"] != "http://news.test/tide-pools" || links[0].(map[string]any)["text"] != "Tide pools" {
		t.Errorf("links = %v", m["links"])
	}
	if imgs, _ := m["images"].([]any); len(imgs) != 1 || imgs[0].(map[string]any)["alt"] != "A boat" {
		t.Errorf("images = %v", m["images"])
	}
	if _, ok := m["screenshot"]; ok {
		t.Error("a screenshot nobody asked for")
	}
	if got := before - balance(t, e, tok); got != 2 {
		t.Errorf("charged %v, want the page's 2", got)
	}
	r = e.Do("POST", "/v1/content", tok, map[string]any{"url": "http://news.test/linked", "formats": []string{"links"}, "headers": map[string]string{"X-Trace": "1"}, "locale": "de-DE"})
	if r.Status != 200 || r.JSON(t)["links"] == nil {
		t.Fatalf("POST = %d %s", r.Status, r.Body)
	}
	if r := e.Do("GET", "/v1/content?url=http://news.test/linked", tok, nil); strings.Contains(string(r.Body), `"links"`) {
		t.Error("links without formats: the spec's answer must stay as it is")
	}
	before = balance(t, e, tok)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"url": "http://news.test/linked", "formats": []string{"pdf"}}, "formats"},
		{map[string]any{"url": "http://news.test/linked", "actions": []map[string]any{{"type": "click", "selector": "#a"}, {"type": "wait"}}}, "actions[1].milliseconds"},
		{map[string]any{"url": "http://news.test/linked", "headers": map[string]string{"Host": "intranet.test"}}, "headers.Host"},
		{map[string]any{"url": "http://news.test/linked", "country": "DE"}, "country"},
		{map[string]any{"url": "http://news.test/linked", "actions": "click"}, "actions"},
		{map[string]any{"url": "http://news.test/linked", "formats": []string{"screenshot"}, "render": "never"}, "render"},
	} {
		r := e.Do("POST", "/v1/content", tok, c.body)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), `"`+c.field+`"`) {
			t.Errorf("%v: %d %s, want 422 on %s", c.body, r.Status, r.Body, c.field)
		}
	}
	// This server has no browser: a screenshot is refused, free.
	if r := e.Do("POST", "/v1/content", tok, map[string]any{"url": "http://news.test/linked", "formats": []string{"screenshot"}}); r.Status != 503 {
		t.Errorf("screenshot without a browser = %d %s", r.Status, r.Body)
	}
	if got := before - balance(t, e, tok); got != 0 {
		t.Errorf("failures charged %v", got)
	}
}
