package extract

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// metadata reads the page-level metadata from the untouched document.
func metadata(doc *html.Node, base *url.URL) ports.Metadata {
	metas := map[string]string{}
	var title, htmlLang, firstH1 string
	var icons []iconLink
	var ldAuthors []string
	elements(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Html:
			htmlLang = strings.TrimSpace(attr(n, "lang"))
			if htmlLang == "" {
				htmlLang = strings.TrimSpace(attr(n, "xml:lang"))
			}
		case atom.Title:
			if title == "" && n.Parent != nil && n.Parent.DataAtom != atom.Svg {
				title = innerText(n)
			}
			return false
		case atom.H1:
			if firstH1 == "" {
				firstH1 = innerText(n)
			}
			return false
		case atom.Meta:
			key := strings.ToLower(strings.TrimSpace(attr(n, "property")))
			if key == "" {
				key = strings.ToLower(strings.TrimSpace(attr(n, "name")))
			}
			if key == "" {
				key = "http-equiv:" + strings.ToLower(strings.TrimSpace(attr(n, "http-equiv")))
			}
			if key == "" {
				key = strings.ToLower(strings.TrimSpace(attr(n, "itemprop")))
			}
			if v := strings.TrimSpace(attr(n, "content")); v != "" {
				if _, seen := metas[key]; !seen {
					metas[key] = v
				}
			}
		case atom.Link:
			rel := strings.ToLower(attr(n, "rel"))
			if strings.Contains(rel, "icon") && attr(n, "href") != "" {
				icons = append(icons, iconLink{rel: rel, href: attr(n, "href"), sizes: attr(n, "sizes")})
			}
		case atom.Script:
			if strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") && n.FirstChild != nil {
				ldAuthors = append(ldAuthors, jsonLDAuthors(n.FirstChild.Data)...)
			}
			return false
		}
		return true
	})
	first := func(keys ...string) string {
		for _, k := range keys {
			if v := metas[k]; v != "" {
				return v
			}
		}
		return ""
	}
	m := ports.Metadata{
		Title:         title,
		Description:   first("description", "og:description", "twitter:description", "dc.description"),
		Keywords:      first("keywords", "news_keywords", "article:tag"),
		Author:        first("author", "article:author", "dc.creator", "byl", "sailthru.author", "parsely-author"),
		Language:      normalizeLang(firstNonEmpty(htmlLang, metas["http-equiv:content-language"], metas["language"], metas["dc.language"], metas["og:locale"])),
		OGTitle:       metas["og:title"],
		OGType:        metas["og:type"],
		OGImage:       absolute(base, first("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src")),
		OGImageWidth:  metas["og:image:width"],
		OGImageHeight: metas["og:image:height"],
		Favicon:       absolute(base, pickIcon(icons)),
	}
	if m.Title == "" {
		m.Title = firstNonEmpty(m.OGTitle, metas["twitter:title"], firstH1)
	}
	if strings.HasPrefix(m.Author, "http://") || strings.HasPrefix(m.Author, "https://") || m.Author == "" {
		if len(ldAuthors) > 0 {
			m.Author = strings.Join(ldAuthors, ", ")
		} else if strings.HasPrefix(m.Author, "http") {
			m.Author = ""
		}
	}
	if m.Favicon == "" && base != nil {
		m.Favicon = base.Scheme + "://" + base.Host + "/favicon.ico"
	}
	return m
}

type iconLink struct{ rel, href, sizes string }

// pickIcon prefers a plain "icon", then "shortcut icon", then touch icons.
func pickIcon(icons []iconLink) string {
	best, bestRank := "", 99
	for _, ic := range icons {
		rank := 3
		switch {
		case ic.rel == "icon":
			rank = 0
		case strings.Contains(ic.rel, "shortcut"):
			rank = 1
		case strings.Contains(ic.rel, "apple-touch"):
			rank = 2
		}
		if rank < bestRank {
			best, bestRank = ic.href, rank
		}
	}
	return best
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// normalizeLang turns "en_US" or "EN-us" into "en-US"; "en" stays "en".
func normalizeLang(s string) string {
	s = strings.TrimSpace(strings.SplitN(s, ",", 2)[0])
	if s == "" {
		return ""
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
	if len(parts) == 0 {
		return ""
	}
	out := strings.ToLower(parts[0])
	if len(parts) > 1 && len(parts[1]) == 2 {
		out += "-" + strings.ToUpper(parts[1])
	}
	return out
}

func absolute(base *url.URL, ref string) string { return weburl.Absolute(base, ref) }

// jsonLDAuthors finds author names in JSON-LD (objects, arrays, @graph).
func jsonLDAuthors(raw string) []string {
	var v any
	if json.Unmarshal([]byte(strings.TrimSpace(raw)), &v) != nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	var walk func(any, bool)
	walk = func(v any, isAuthor bool) {
		switch t := v.(type) {
		case map[string]any:
			if isAuthor {
				if n, ok := t["name"].(string); ok && n != "" && !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
				return
			}
			// In the order of their names: a JSON object's members have
			// none, and a map's would name the authors in another order
			// at every call.
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k], k == "author" || k == "creator")
			}
		case []any:
			for _, c := range t {
				walk(c, isAuthor)
			}
		case string:
			if isAuthor && t != "" && !seen[t] && !strings.HasPrefix(t, "http") {
				seen[t] = true
				names = append(names, t)
			}
		}
	}
	walk(v, false)
	return names
}
