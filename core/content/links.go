package content

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// MaxPageLinks bounds the links (and the images) answered for one page.
const MaxPageLinks = 5000

// Link is a link of the page: absolute, with its anchor text.
type Link struct {
	URL  string `json:"url"`
	Text string `json:"text"`
}

// Image is an image of the page: absolute, with its alt text.
type Image struct {
	URL string `json:"url"`
	Alt string `json:"alt"`
}

// Links lists the page's <a href> links: absolute http(s) URLs resolved
// against <base href> or pageURL, without their fragment, each once (the
// first non-empty anchor text wins), in document order.
func Links(pageURL string, doc []byte) []Link {
	out := []Link{}
	at := map[string]int{}
	walk(pageURL, doc, func(base *url.URL, a atom.Atom, attrs map[string]string, text func() string) {
		if a != atom.A {
			return
		}
		href, ok := attrs["href"]
		if !ok {
			return
		}
		abs := resolve(base, href)
		if abs == "" {
			return
		}
		t := text()
		if i, seen := at[abs]; seen {
			if out[i].Text == "" {
				out[i].Text = t
			}
			return
		}
		if len(out) >= MaxPageLinks {
			return
		}
		at[abs] = len(out)
		out = append(out, Link{URL: abs, Text: t})
	})
	return out
}

// Images lists the page's <img> images: src, or the data-src a lazy
// loader fills it from, absolute, each once, with the first non-empty alt.
func Images(pageURL string, doc []byte) []Image {
	out := []Image{}
	at := map[string]int{}
	walk(pageURL, doc, func(base *url.URL, a atom.Atom, attrs map[string]string, _ func() string) {
		if a != atom.Img {
			return
		}
		src := attrs["src"]
		if ds := attrs["data-src"]; ds != "" && (src == "" || strings.HasPrefix(src, "data:")) {
			src = ds
		}
		abs := resolve(base, src)
		if abs == "" {
			return
		}
		alt := collapse(attrs["alt"])
		if i, seen := at[abs]; seen {
			if out[i].Alt == "" {
				out[i].Alt = alt
			}
			return
		}
		if len(out) >= MaxPageLinks {
			return
		}
		at[abs] = len(out)
		out = append(out, Image{URL: abs, Alt: alt})
	})
	return out
}

// walk calls visit for every start tag of doc with the base in force;
// text reads an element's text up to its end tag (for <a>).
func walk(pageURL string, doc []byte, visit func(base *url.URL, a atom.Atom, attrs map[string]string, text func() string)) {
	base, err := url.Parse(pageURL)
	if err != nil {
		return
	}
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return
	}
	baseSet := false
	var rec func(n *html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.ElementNode {
			attrs := map[string]string{}
			for _, at := range n.Attr {
				if _, dup := attrs[at.Key]; !dup && at.Namespace == "" {
					attrs[at.Key] = at.Val
				}
			}
			if n.DataAtom == atom.Base && !baseSet {
				if b := resolveAny(base, attrs["href"]); b != nil {
					base, baseSet = b, true
				}
			}
			visit(base, n.DataAtom, attrs, func() string { return collapse(textOf(n)) })
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(root)
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style):
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Img:
			for _, a := range n.Attr {
				if a.Key == "alt" {
					b.WriteString(a.Val)
					b.WriteByte(' ')
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

func resolveAny(base *url.URL, ref string) *url.URL {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil
	}
	u, err := base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}

// ResolveLink is ref made absolute against base, http(s) only, without
// its fragment; empty when it is not a web URL (javascript:, mailto:,
// data:). It is how every link of a page is resolved, here and by crawls.
func ResolveLink(base *url.URL, ref string) string { return resolve(base, ref) }

// resolve is ResolveLink.
func resolve(base *url.URL, ref string) string {
	u := resolveAny(base, ref)
	if u == nil {
		return ""
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
