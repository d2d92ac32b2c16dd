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
	eachJSONLDObject(doc, "", func(x map[string]any) bool {
		if s, ok := x["articleBody"].(string); ok && len(s) > len(body) {
			body = s
		}
		if s, ok := x["description"].(string); ok && len(s) > len(desc) && typedAs(x["@type"]) {
			desc = s
		}
		return true
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

// recipeMinItems: a recipe declares at least this many ingredients or
// steps before they stand in for a missing part of its text.
const recipeMinItems = 3

// recipeParts are the ingredients and the steps of the recipe a page
// declares in its JSON-LD (recipeIngredient, recipeInstructions as text,
// steps or sections of steps), unescaped; nil when it declares none.
func recipeParts(doc *html.Node) (ingredients, steps []string) {
	clean := func(s string) string { return strings.Join(strings.Fields(html.UnescapeString(s)), " ") }
	var instructions func(v any)
	instructions = func(v any) {
		switch x := v.(type) {
		case string:
			if t := clean(x); t != "" {
				steps = append(steps, t)
			}
		case []any:
			for _, e := range x {
				instructions(e)
			}
		case map[string]any:
			if s, ok := x["text"].(string); ok {
				instructions(s)
			} else if items, ok := x["itemListElement"]; ok {
				instructions(items)
			}
		}
	}
	eachJSONLDObject(doc, "recipeIngredient", func(x map[string]any) bool {
		list, ok := x["recipeIngredient"].([]any)
		if !ok || ingredients != nil {
			return true
		}
		for _, e := range list {
			if s, ok := e.(string); ok && clean(s) != "" {
				ingredients = append(ingredients, clean(s))
			}
		}
		instructions(x["recipeInstructions"])
		return false
	})
	return ingredients, steps
}

// completeRecipe adds to the content of a recipe page the ingredients and
// the steps its structured data declares when the content lacks them
// (most of them absent from its text: the page renders them with
// scripts, or in a block the extraction judged furniture), as a list
// each. It reports whether it added any.
func completeRecipe(content *html.Node, text string, ingredients, steps []string) bool {
	have := strings.ToLower(strings.Join(strings.Fields(text), " "))
	added := false
	for _, part := range []struct {
		items []string
		list  atom.Atom
	}{{ingredients, atom.Ul}, {steps, atom.Ol}} {
		if len(part.items) < recipeMinItems {
			continue
		}
		found := 0
		for _, it := range part.items {
			if strings.Contains(have, strings.ToLower(it)) {
				found++
			}
		}
		if 2*found >= len(part.items) {
			continue
		}
		l := &html.Node{Type: html.ElementNode, Data: part.list.String(), DataAtom: part.list}
		for _, it := range part.items {
			li := &html.Node{Type: html.ElementNode, Data: "li", DataAtom: atom.Li}
			li.AppendChild(&html.Node{Type: html.TextNode, Data: it})
			l.AppendChild(li)
		}
		content.AppendChild(l)
		added = true
	}
	return added
}

// eachJSONLDObject hands fn each object of each JSON-LD script of the page
// whose text holds key (any script when key is empty), outermost first; fn
// says whether to look inside the object too. The cheap substring test
// spares decoding the scripts that cannot hold what the caller reads.
func eachJSONLDObject(doc *html.Node, key string, fn func(map[string]any) bool) {
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			if fn(x) {
				for _, e := range x {
					walk(e)
				}
			}
		}
	}
	elements(doc, func(n *html.Node) bool {
		if n.DataAtom != atom.Script {
			return true
		}
		if strings.Contains(strings.ToLower(attr(n, "type")), "ld+json") && n.FirstChild != nil && strings.Contains(n.FirstChild.Data, key) {
			var v any
			if json.Unmarshal([]byte(n.FirstChild.Data), &v) == nil {
				walk(v)
			}
		}
		return false
	})
}
