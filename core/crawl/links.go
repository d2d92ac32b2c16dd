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
// URL the document was served from (after redirects). It reads the page
// with the tokenizer, not the tree, and keeps of a tag only the attributes
// it uses: it runs on every page a crawl reads.
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
		t := readTag(z, hasAttr)
		switch a {
		case atom.Base:
			if t.has&attrHref != 0 && !baseSet {
				if b := absolute(base, t.href); b != "" {
					base, _ = url.Parse(b)
					baseSet = true
				}
			}
		case atom.A, atom.Area:
			if t.has&attrHref != 0 && !hasRel(t.rel, "nofollow") {
				add(t.href)
			}
		case atom.Link:
			switch {
			case hasRel(t.rel, "canonical") && out.Canonical == "":
				out.Canonical = absolute(base, t.href)
			case hasRel(t.rel, "next"):
				add(t.href)
			}
		case atom.Meta:
			n := strings.ToLower(strings.TrimSpace(t.name))
			if n != "robots" && n != "trawl" {
				continue
			}
			for _, d := range strings.Split(strings.ToLower(t.content), ",") {
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

// tagAttrs are the attributes ExtractLinks reads of a tag, each the first
// of its name the tag has; has says which the tag has.
type tagAttrs struct {
	href, rel, name, content string
	has                      uint8
}

const (
	attrHref uint8 = 1 << iota
	attrRel
	attrName
	attrContent
)

// readTag reads the current tag's attributes into a tagAttrs, copying only
// those it keeps.
func readTag(z *html.Tokenizer, more bool) tagAttrs {
	var t tagAttrs
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		var dst *string
		var bit uint8
		switch string(k) {
		case "href":
			dst, bit = &t.href, attrHref
		case "rel":
			dst, bit = &t.rel, attrRel
		case "name":
			dst, bit = &t.name, attrName
		case "content":
			dst, bit = &t.content, attrContent
		default:
			continue
		}
		if t.has&bit == 0 {
			*dst, t.has = string(v), t.has|bit
		}
	}
	return t
}

// hasRel reports whether a rel attribute names token (lower case), in any
// case.
func hasRel(rel, token string) bool {
	if rel == "" {
		return false
	}
	for _, r := range strings.Fields(strings.ToLower(rel)) {
		if r == token {
			return true
		}
	}
	return false
}

// absolute resolves ref against base as a page's links are (see
// content.ResolveLink); a fragment alone names the page itself: none.
func absolute(base *url.URL, ref string) string {
	if strings.HasPrefix(strings.TrimSpace(ref), "#") {
		return ""
	}
	return content.ResolveLink(base, ref)
}
