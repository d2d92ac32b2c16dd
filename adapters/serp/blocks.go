package serp

import (
	"net/url"
	"strings"

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

// hasChildElement reports an element among n's children.
func hasChildElement(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return true
		}
	}
	return false
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
	// The link and the block are walked for what the selectors h3,
	// [role="heading"] / cite / [role="text"], span, div / img / a[href]
	// find, in document order, without building selections.
	var heading *html.Node
	eachElement(a, func(n *html.Node) bool {
		if n.Data == "h3" || attrHas(n, "role", "heading") {
			heading = n
			return false
		}
		return true
	})
	r := ports.OrganicResult{Position: pos, Title: nodeText(heading), Link: link}

	// The block's cites, images and links (a[href]), in one walk.
	var cites, imgs, links []*html.Node
	eachElement(block, func(n *html.Node) bool {
		switch n.Data {
		case "cite":
			cites = append(cites, n)
		case "img":
			imgs = append(imgs, n)
		case "a":
			if hasAttr(n, "href") {
				links = append(links, n)
			}
		}
		return true
	})

	// Displayed link: a <cite>, else the URL-looking text inside the link.
	if len(cites) > 0 {
		r.DisplayedLink = nodeText(cites[0])
	}
	rest := strings.TrimSpace(strings.Replace(nodeText(a), r.Title, "", 1))
	if r.DisplayedLink == "" {
		eachElement(a, func(n *html.Node) bool {
			if n.Data != "span" && n.Data != "div" && !attrHas(n, "role", "text") || hasChildElement(n) {
				return true
			}
			t := nodeText(n)
			if (strings.Contains(t, "›") || strings.HasPrefix(t, "http") || strings.HasPrefix(t, "www.")) && t != r.Title {
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
	eachElement(a, func(img *html.Node) bool {
		if img.Data != "img" || contains(heading, img) {
			return true
		}
		r.Favicon = imgNodeSrc(base, img)
		return r.Favicon == ""
	})
	if r.Favicon == "" {
		if u, err := url.Parse(link); err == nil {
			r.Favicon = u.Scheme + "://" + u.Host + "/favicon.ico"
		}
	}
	// Thumbnail: an image of the block outside the link.
	for _, img := range imgs {
		if contains(a, img) {
			continue
		}
		if r.Thumbnail = imgNodeSrc(base, img); r.Thumbnail != "" {
			break
		}
	}
	// Sitelinks: the other links of the block that leave the engine.
	seen := map[string]bool{link: true}
	for _, n := range links {
		if n == a || contains(a, n) {
			continue
		}
		href, _ := attrOf(n, "href")
		t := target(href)
		title := nodeText(n)
		if t == "" || seen[t] || sitelinkNoise[strings.ToLower(title)] || len([]rune(title)) > 80 {
			continue
		}
		seen[t] = true
		r.Sitelinks = append(r.Sitelinks, ports.Sitelink{Title: title, Link: t})
	}
	r.Snippet = snippetOf(block, a, cites, r.DisplayedLink, r.Sitelinks)
	return r
}

// eachElement calls fn on the elements under n in document order (n
// itself excluded), as a selector's matches come, until fn returns false;
// it reports whether the walk ran to its end.
func eachElement(n *html.Node, fn func(*html.Node) bool) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !fn(c) {
			return false
		}
		if !eachElement(c, fn) {
			return false
		}
	}
	return true
}

// eachElementUnder calls fn on the elements under parent in document
// order, with what their parent's call returned (state for parent's own
// children): what an element is under is carried down, not looked up.
func eachElementUnder[S any](parent *html.Node, state S, fn func(n *html.Node, under S) S) {
	for n := parent.FirstChild; n != nil; n = n.NextSibling {
		if n.Type == html.ElementNode {
			eachElementUnder(n, fn(n, state), fn)
		} else {
			eachElementUnder(n, state, fn)
		}
	}
}

// attrHas reports an attribute key of n with the value val, as the
// selector [key="val"] matches it.
func attrHas(n *html.Node, key, val string) bool {
	for _, a := range n.Attr {
		if a.Key == key && a.Val == val {
			return true
		}
	}
	return false
}

// snippetOf picks the longest text of the block that is neither the link
// nor the displayed URL, reading each candidate without the text of the
// sitelinks it may hold: the description under the title. cites are the
// block's <cite> elements.
func snippetOf(root, a *html.Node, cites []*html.Node, displayed string, sitelinks []ports.Sitelink) string {
	links := map[string]bool{}
	for _, sl := range sitelinks {
		links[sl.Title] = true
	}
	best := ""
	// Read once for the whole block: the nodes holding a <cite> (each
	// cite's ancestors). A node's text length before white space is
	// collapsed is an upper bound of its text's: a candidate that cannot
	// beat the best so far is not read.
	holdsCite := map[*html.Node]bool{}
	for _, c := range cites {
		for n := c; n != nil && !holdsCite[n]; n = n.Parent {
			holdsCite[n] = true
			if n == root {
				break
			}
		}
	}
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
			if textShort(n, len(best)+1) > 0 {
				continue
			}
			if (n.Data == "div" || n.Data == "span" || n.Data == "p") && !holdsCite[n] && !contains(n, a) {
				var c collapser
				c.b.Grow(textSize(n))
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
