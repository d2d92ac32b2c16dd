package serp

import (
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/ports"
)

// resultBlocks turns result anchors into organic results. Each result's
// block is the largest ancestor of its anchor that holds no other result
// anchor; snippet, displayed link, favicon, thumbnail and sitelinks are read
// from it.
func resultBlocks(anchors []*html.Node, targets map[*html.Node]string, base *url.URL, target func(string) string) []ports.OrganicResult {
	if len(anchors) == 0 {
		return nil
	}
	// counts[n] is the number of anchors at or under n: each anchor counts
	// for itself and its ancestors.
	counts := map[*html.Node]int{}
	for _, a := range anchors {
		for n := a; n != nil; n = n.Parent {
			counts[n]++
		}
	}
	out := make([]ports.OrganicResult, 0, len(anchors))
	for i, a := range anchors {
		block := a
		for block.Parent != nil && block.Parent.Type == html.ElementNode && counts[block.Parent] == 1 && block.Parent.Data != "body" {
			block = block.Parent
		}
		out = append(out, readBlock(i+1, a, block, targets[a], base, target))
	}
	return out
}

// eachSitelink calls fn on the outermost nodes under n that skip reports.
func eachSitelink(n *html.Node, skip func(*html.Node) bool, fn func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if skip(c) {
			fn(c)
			continue
		}
		eachSitelink(c, skip, fn)
	}
}

// eachDescendant calls fn on the nodes under n in document order, as
// Find visits them (n itself excluded).
func eachDescendant(n *html.Node, fn func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		fn(c)
		eachDescendant(c, fn)
	}
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func contains(outer, inner *html.Node) bool {
	for n := inner; n != nil; n = n.Parent {
		if n == outer {
			return true
		}
	}
	return false
}

var sitelinkNoise = map[string]bool{"cached": true, "similar": true, "translate this page": true, "more results": true, "": true}

func readBlock(pos int, a, block *html.Node, link string, base *url.URL, target func(string) string) ports.OrganicResult {
	as := goquery.NewDocumentFromNode(a).Selection
	bs := goquery.NewDocumentFromNode(block).Selection
	heading := as.FindMatcher(match(`h3, [role="heading"]`)).First()
	r := ports.OrganicResult{Position: pos, Title: text(heading), Link: link}

	// Displayed link: a <cite>, else the URL-looking text inside the link.
	if c := bs.FindMatcher(match("cite")).First(); c.Length() > 0 {
		r.DisplayedLink = text(c)
	}
	rest := strings.TrimSpace(strings.Replace(text(as), r.Title, "", 1))
	if r.DisplayedLink == "" {
		as.FindMatcher(match(`[role="text"], span, div`)).EachWithBreak(func(_ int, s *goquery.Selection) bool {
			t := text(s)
			if s.Children().Length() == 0 && (strings.Contains(t, "›") || strings.HasPrefix(t, "http") || strings.HasPrefix(t, "www.")) && t != r.Title {
				r.DisplayedLink = t
				return false
			}
			return true
		})
	}
	if r.DisplayedLink == "" {
		r.DisplayedLink = displayFromLink(link)
	}
	// Source: the site name shown in the link beside the title and URL.
	src := strings.TrimSpace(strings.Replace(rest, r.DisplayedLink, "", 1))
	if src != "" && len([]rune(src)) <= 60 && !strings.Contains(src, "›") && !strings.HasPrefix(src, "http") {
		r.Source = src
	} else {
		r.Source = hostOf(link)
	}
	// Favicon: an image inside the link; else the site's own.
	as.FindMatcher(match("img")).EachWithBreak(func(_ int, img *goquery.Selection) bool {
		if contains(heading.Get(0), img.Get(0)) {
			return true
		}
		r.Favicon = imgSrc(base, img)
		return r.Favicon == ""
	})
	if r.Favicon == "" {
		if u, err := url.Parse(link); err == nil {
			r.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
		}
	}
	// Thumbnail: an image of the block outside the link.
	bs.FindMatcher(match("img")).EachWithBreak(func(_ int, img *goquery.Selection) bool {
		if contains(a, img.Get(0)) {
			return true
		}
		r.Thumbnail = imgSrc(base, img)
		return r.Thumbnail == ""
	})
	// Sitelinks: the other links of the block that leave the engine.
	seen := map[string]bool{link: true}
	bs.FindMatcher(match("a[href]")).Each(func(_ int, s *goquery.Selection) {
		n := s.Get(0)
		if n == a || contains(a, n) {
			return
		}
		href, _ := s.Attr("href")
		t := target(href)
		title := text(s)
		if t == "" || seen[t] || sitelinkNoise[strings.ToLower(title)] || len([]rune(title)) > 80 {
			return
		}
		seen[t] = true
		r.Sitelinks = append(r.Sitelinks, ports.Sitelink{Title: title, Link: t})
	})
	r.Snippet = snippetOf(bs, a, r.DisplayedLink, r.Sitelinks)
	return r
}

// snippetOf picks the longest text of the block that is neither the link
// nor the displayed URL, reading each candidate without the text of the
// sitelinks it may hold: the description under the title.
func snippetOf(block *goquery.Selection, a *html.Node, displayed string, sitelinks []ports.Sitelink) string {
	links := map[string]bool{}
	for _, sl := range sitelinks {
		links[sl.Title] = true
	}
	best := ""
	// Read once for the whole block: the nodes holding a <cite> (each
	// cite's ancestors), those around the link, and every node's text
	// length before white space is collapsed, an upper bound of its text's:
	// a candidate that cannot beat the best so far is not read.
	root := block.Get(0)
	holdsCite := map[*html.Node]bool{}
	block.FindMatcher(match("cite")).Each(func(_ int, c *goquery.Selection) {
		for n := c.Get(0); n != nil && !holdsCite[n]; n = n.Parent {
			holdsCite[n] = true
			if n == root {
				break
			}
		}
	})
	aroundLink := map[*html.Node]bool{}
	for n := a; n != nil; n = n.Parent {
		aroundLink[n] = true
	}
	rawLen := map[*html.Node]int{}
	rawTextLen(root, rawLen)
	// A sitelink's title is left out of a candidate's text (the link is
	// read as if removed).
	isSitelink := func(n *html.Node) bool {
		return len(links) > 0 && n.Type == html.ElementNode && n.Data == "a" && hasAttr(n, "href") && links[nodeText(n)]
	}
	// Candidates in document order; a subtree is left when nothing in it
	// can be longer than the best: a node's text is at most its raw length,
	// and the text of a node inside a candidate read is part of that
	// candidate's text.
	var walk func(*html.Node)
	walk = func(parent *html.Node) {
		for n := parent.FirstChild; n != nil; n = n.NextSibling {
			if n.Type != html.ElementNode || n == a {
				continue
			}
			if rawLen[n] <= len(best) {
				continue
			}
			if (n.Data == "div" || n.Data == "span" || n.Data == "p") && !aroundLink[n] && !holdsCite[n] {
				var c collapser
				c.b.Grow(rawLen[n])
				c.nodeWithout(n, isSitelink)
				t := c.b.String()
				if len(t) > len(best) && t != displayed {
					best = t
				}
				if len(t) <= len(best) {
					// Only what the text left out, the sitelinks, may still
					// hold a longer one.
					eachSitelink(n, isSitelink, walk)
					continue
				}
			}
			walk(n)
		}
	}
	walk(root)
	return best
}
