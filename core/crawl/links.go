package crawl

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/core/content"
)

// MaxLinksPerPage bounds the links read from one page.
const MaxLinksPerPage = 5000

// Links is what a page says of its neighbours and of itself.
type Links struct {
	// URLs are the absolute http(s) links to follow: <a href> without
	// rel=nofollow and <link rel=next>, resolved against <base href>, in
	// document order.
	URLs []string
	// Canonical is the page's <link rel=canonical>, absolute; empty when
	// it names none.
	Canonical string
	// NoIndex and NoFollow are the page's <meta name=robots> (or
	// name=trawl) directives.
	NoIndex, NoFollow bool
}

// ExtractLinks reads a page's links and robots directives. pageURL is the
// URL the document was served from (after redirects).
func ExtractLinks(pageURL string, doc []byte) Links {
	base, err := url.Parse(pageURL)
	if err != nil {
		return Links{}
	}
	var out Links
	z := html.NewTokenizer(bytes.NewReader(doc))
	seen := map[string]bool{}
	add := func(ref string) {
		if len(out.URLs) >= MaxLinksPerPage {
			return
		}
		abs := absolute(base, ref)
		if abs == "" || seen[abs] {
			return
		}
		seen[abs] = true
		out.URLs = append(out.URLs, abs)
	}
	baseSet := false
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		if a != atom.A && a != atom.Link && a != atom.Meta && a != atom.Base && a != atom.Area {
			continue
		}
		attrs := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if _, dup := attrs[string(k)]; !dup {
				attrs[string(k)] = string(v)
			}
		}
		rel := relSet(attrs["rel"])
		switch a {
		case atom.Base:
			if href, ok := attrs["href"]; ok && !baseSet {
				if b := absolute(base, href); b != "" {
					base, _ = url.Parse(b)
					baseSet = true
				}
			}
		case atom.A, atom.Area:
			if href, ok := attrs["href"]; ok && !rel["nofollow"] {
				add(href)
			}
		case atom.Link:
			switch {
			case rel["canonical"] && out.Canonical == "":
				out.Canonical = absolute(base, attrs["href"])
			case rel["next"]:
				add(attrs["href"])
			}
		case atom.Meta:
			n := strings.ToLower(strings.TrimSpace(attrs["name"]))
			if n != "robots" && n != "trawl" {
				continue
			}
			for _, d := range strings.Split(strings.ToLower(attrs["content"]), ",") {
				switch strings.TrimSpace(d) {
				case "noindex":
					out.NoIndex = true
				case "nofollow":
					out.NoFollow = true
				case "none":
					out.NoIndex, out.NoFollow = true, true
				}
			}
		}
	}
	return out
}

func relSet(rel string) map[string]bool {
	out := map[string]bool{}
	for _, r := range strings.Fields(strings.ToLower(rel)) {
		out[r] = true
	}
	return out
}

// absolute resolves ref against base as a page's links are (see
// content.ResolveLink); a fragment alone names the page itself: none.
func absolute(base *url.URL, ref string) string {
	if strings.HasPrefix(strings.TrimSpace(ref), "#") {
		return ""
	}
	return content.ResolveLink(base, ref)
}
