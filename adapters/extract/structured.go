package extract

import (
	"encoding/json"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// structuredTypes are the schema.org types whose text in a page's
// structured data is the page's content: an article's body, or the
// description of the one thing the page is about.
var structuredTypes = map[string]bool{
	"article": true, "newsarticle": true, "blogposting": true, "report": true, "scholarlyarticle": true,
	"techarticle": true, "product": true, "recipe": true, "event": true, "course": true, "jobposting": true,
	"socialmediaposting": true, "discussionforumposting": true, "question": true, "howto": true,
}

// structuredContent is the content a page declares in its JSON-LD when it
// shows it only once its scripts run: the longest articleBody, else the
// longest description of an article, product or like thing, at least
// excerptMin characters, as HTML; nil when the page declares none.
func structuredContent(doc *html.Node) *html.Node {
	body, desc := "", ""
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if s, ok := x["articleBody"].(string); ok && len(s) > len(body) {
				body = s
			}
			if s, ok := x["description"].(string); ok && len(s) > len(desc) && typedAs(x["@type"]) {
				desc = s
			}
			for k, e := range x {
				if k != "articleBody" && k != "description" {
					walk(e)
				}
			}
		}
	}
	elements(doc, func(n *html.Node) bool {
		if n.DataAtom != atom.Script {
			return true
		}
		if strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") && n.FirstChild != nil {
			var v any
			if json.Unmarshal([]byte(n.FirstChild.Data), &v) == nil {
				walk(v)
			}
		}
		return false
	})
	text := body
	if runeLen(strings.TrimSpace(text)) < excerptMin {
		text = desc
	}
	if runeLen(strings.TrimSpace(text)) < excerptMin {
		return nil
	}
	c := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(text), c)
	if err != nil {
		return nil
	}
	for _, n := range nodes {
		c.AppendChild(n)
	}
	paragraphize(c)
	return c
}

func typedAs(t any) bool {
	switch x := t.(type) {
	case string:
		return structuredTypes[strings.ToLower(x)]
	case []any:
		for _, e := range x {
			if typedAs(e) {
				return true
			}
		}
	}
	return false
}
