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
	links, _ := LinksAndImages(pageURL, doc, true, false)
	return links
}

// Images lists the page's <img> images: src, or the data-src a lazy
// loader fills it from, absolute, each once, with the first non-empty alt.
func Images(pageURL string, doc []byte) []Image {
	_, images := LinksAndImages(pageURL, doc, false, true)
	return images
}

// LinksAndImages is Links and Images, those asked for, from one parse of
// the page; nil for what was not asked.
func LinksAndImages(pageURL string, doc []byte, links, images bool) ([]Link, []Image) {
	var (
		ls     []Link
		is     []Image
		linkAt = map[string]int{}
		imgAt  = map[string]int{}
	)
	if links {
		ls = []Link{}
	}
	if images {
		is = []Image{}
	}
	walk(pageURL, doc, func(base *url.URL, n *html.Node) {
		switch {
		case links && n.DataAtom == atom.A:
			href, ok := attrOf(n, "href")
			if !ok {
				return
			}
			abs := resolve(base, href)
			if abs == "" {
				return
			}
			t := collapse(textOf(n))
			if i, seen := linkAt[abs]; seen {
				if ls[i].Text == "" {
					ls[i].Text = t
				}
				return
			}
			if len(ls) >= MaxPageLinks {
				return
			}
			linkAt[abs] = len(ls)
			ls = append(ls, Link{URL: abs, Text: t})
		case images && n.DataAtom == atom.Img:
			src, _ := attrOf(n, "src")
			if ds, _ := attrOf(n, "data-src"); ds != "" && (src == "" || strings.HasPrefix(src, "data:")) {
				src = ds
			}
			abs := resolve(base, src)
			if abs == "" {
				return
			}
			alt, _ := attrOf(n, "alt")
			alt = collapse(alt)
			if i, seen := imgAt[abs]; seen {
				if is[i].Alt == "" {
					is[i].Alt = alt
				}
				return
			}
			if len(is) >= MaxPageLinks {
				return
			}
			imgAt[abs] = len(is)
			is = append(is, Image{URL: abs, Alt: alt})
		}
	})
	return ls, is
}

// attrOf is an element's attribute key without a namespace, the first of
// that name; ok says whether it has one.
func attrOf(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key && a.Namespace == "" {
			return a.Val, true
		}
	}
	return "", false
}

// walk calls visit for every element of doc, in document order, with the
// base in force.
func walk(pageURL string, doc []byte, visit func(base *url.URL, n *html.Node)) {
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
			if n.DataAtom == atom.Base && !baseSet {
				href, _ := attrOf(n, "href")
				if b := resolveAny(base, href); b != nil {
					base, baseSet = b, true
				}
			}
			visit(base, n)
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
