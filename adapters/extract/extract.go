// Package extract finds the main content of a web page and renders it as
// clean HTML, Markdown and text, with the page's metadata. The algorithm is
// Trawl's own: readability-style scoring of prose over a DOM cleaned of
// chrome, guarded so that a block holding much of the prose is never dropped
// for its name, then a pass that removes link lists, captions, bylines and
// furniture from the chosen content.
package extract

import (
	"bytes"
	"context"
	"net/url"
	"regexp"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/abadojack/whatlanggo"
	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// MinTextChars is the least text a page must yield to have main content.
const MinTextChars = 50

// Extractor implements ports.Extractor. It is safe for concurrent use.
type Extractor struct {
	policy *bluemonday.Policy
	md     *converter.Converter
}

var _ ports.Extractor = (*Extractor)(nil)

// New builds an extractor.
func New() *Extractor {
	return &Extractor{policy: newPolicy(), md: newMarkdown()}
}

func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code", "em", "strong",
		"b", "i", "u", "s", "del", "ins", "sub", "sup", "small", "mark", "abbr", "cite", "q", "kbd", "samp", "var",
		"ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
		"figure", "figcaption", "div", "section", "time")
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("src", "alt", "title", "width", "height").OnElements("img")
	p.AllowAttrs("colspan", "rowspan").OnElements("td", "th")
	p.AllowAttrs("start").OnElements("ol")
	p.AllowAttrs("datetime").OnElements("time")
	p.AllowAttrs("class").Matching(codeLanguageClass).OnElements("pre", "code")
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireParseableURLs(true)
	p.AllowRelativeURLs(false)
	return p
}

// extract finds the main content of a page (Extract without the page's verdicts).
func (e *Extractor) extract(ctx context.Context, r ports.ExtractRequest) (ports.Extracted, error) {
	const op = "extract.Extract"
	base, _ := url.Parse(r.URL)
	// Parsed as a browser without scripts sees it: <noscript> holds
	// elements, and pages that serve their content there for such readers
	// (forum software, some single-page sites) keep it.
	doc, err := html.ParseWithOptions(bytes.NewReader(r.HTML), html.ParseOptionEnableScripting(false))
	if err != nil {
		return ports.Extracted{}, &ports.ExtractError{Reason: ports.ExtractNotHTML, Err: err}
	}
	if b := findFirst(doc, atom.Base); b != nil && base != nil {
		if href := attr(b, "href"); href != "" {
			if bu, err := base.Parse(href); err == nil {
				base = bu
			}
		}
	}
	meta := metadata(doc, base)
	ingredients, steps := recipeParts(doc)
	faq := faqEntries(doc)
	if err := ctx.Err(); err != nil {
		return ports.Extracted{}, failure.Wrap(op, err)
	}
	content, visible := mainContentOf(doc, meta.Title, false)
	text := ""
	if content != nil {
		text = renderText(content)
	}
	if runeLen(text) < MinTextChars {
		content, text = rescue(r.HTML, meta.Title, visible, content, text)
	}
	if reason := blockReason(r.HTML, meta.Title, visible, runeLen(text)); reason != notBlocked {
		return ports.Extracted{}, &ports.ExtractError{Reason: reason}
	}
	if content == nil || runeLen(text) < MinTextChars {
		return ports.Extracted{}, &ports.ExtractError{Reason: ports.ExtractNoContent}
	}
	if completeRecipe(content, text, ingredients, steps) {
		text = renderText(content)
	}
	if completeFAQ(content, text, faq) {
		text = renderText(content)
	}
	absolutize(content, base)
	markCodeLanguages(content)
	linkHeadings(content)
	var buf bytes.Buffer
	for c := content.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(&buf, c); err != nil {
			return ports.Extracted{}, failure.Wrap(op, err)
		}
	}
	clean := strings.TrimSpace(e.policy.Sanitize(buf.String()))
	opts := []converter.ConvertOptionFunc{converter.WithContext(ctx)}
	if base != nil {
		opts = append(opts, converter.WithDomain(base.Scheme+"://"+base.Host))
	}
	md, err := e.md.ConvertString(clean, opts...)
	if err != nil {
		return ports.Extracted{}, failure.Wrap(op, err)
	}
	if meta.Language == "" {
		meta.Language = detectLanguage(text)
	}
	return ports.Extracted{HTML: clean, Markdown: strings.TrimSpace(md), Text: text, Metadata: meta}, nil
}

// rescue reads a page where no block read as main content, each step only
// when the ones before it found too little:
//   - a page that shows text: what is left of it once chrome is gone;
//   - the lenient pass (mainContentOf), then what it leaves of the page;
//   - the content the page declares in its structured data (JSON-LD), an
//     article's body or the description of the product or article it is
//     about, shown only once its scripts run;
//   - a page that shows no text at all: the excerpt of its content the
//     server wrote in its description, when the description is one (cut
//     off with an ellipsis, as forum and blog software cut the first post
//     or paragraph) and longer than what the passes found (a title); a
//     description that is a summary is not content.
func rescue(page []byte, title string, visible int, content *html.Node, text string) (*html.Node, string) {
	better := func(c *html.Node) {
		if c == nil {
			return
		}
		if t := renderText(c); runeLen(t) > runeLen(text) {
			content, text = c, t
		}
	}
	parse := func() *html.Node {
		doc, err := html.ParseWithOptions(bytes.NewReader(page), html.ParseOptionEnableScripting(false))
		if err != nil {
			return nil
		}
		return doc
	}
	if visible >= MinTextChars {
		if doc := parse(); doc != nil {
			better(wholePage(doc, false))
		}
	}
	if runeLen(text) >= MinTextChars {
		return content, text
	}
	if doc := parse(); doc != nil {
		c, _ := mainContentOf(doc, title, true)
		better(c)
	}
	if runeLen(text) >= MinTextChars {
		return content, text
	}
	if doc := parse(); doc != nil {
		better(wholePage(doc, true))
	}
	if doc := parse(); doc != nil {
		better(structuredContent(doc))
	}
	if runeLen(text) >= MinTextChars || visible >= MinTextChars {
		return content, text
	}
	if doc := parse(); doc != nil {
		if ex := descriptionExcerpt(doc); ex != "" {
			p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
			p.AppendChild(&html.Node{Type: html.TextNode, Data: ex})
			c := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
			c.AppendChild(p)
			better(c)
		}
	}
	return content, text
}

// excerptMin is the least text a description must have to stand for a
// page's content.
const excerptMin = 100

// descriptionExcerpt is the longest of the page's descriptions that is an
// excerpt of its text, cut off with an ellipsis, without the ellipsis; ""
// when none is.
func descriptionExcerpt(doc *html.Node) string {
	best := ""
	elements(doc, func(n *html.Node) bool {
		if n.DataAtom != atom.Meta {
			return true
		}
		switch strings.ToLower(firstNonEmpty(attr(n, "name"), attr(n, "property"))) {
		case "description", "og:description", "twitter:description":
		default:
			return false
		}
		d := strings.TrimSpace(attr(n, "content"))
		cut := ""
		for _, e := range []string{"…", "..."} {
			if t, ok := strings.CutSuffix(d, e); ok {
				cut = strings.TrimSpace(t)
				break
			}
		}
		if runeLen(cut) >= excerptMin && runeLen(cut) > runeLen(best) {
			best = cut
		}
		return false
	})
	return best
}

// detectLanguage guesses the ISO 639-1 code of a text when the page does not
// declare one; "" when unsure.
func detectLanguage(text string) string {
	if len(text) > 4000 {
		text = text[:4000]
	}
	info := whatlanggo.Detect(text)
	if !info.IsReliable() {
		return ""
	}
	return info.Lang.Iso6391()
}

// codeLanguageClass is the one class the clean HTML keeps: the language of
// a code block, which the Markdown writes after the opening fence.
var codeLanguageClass = regexp.MustCompile(`^language-[A-Za-z0-9_+#.-]{1,30}$`)

// codeLanguage names the language of a <pre> or <code> block from the
// page's class ("language-go", "lang-go", "highlight-source-go") or
// data-lang attribute, "" when the page does not say.
func codeLanguage(n *html.Node) string {
	for _, k := range []string{"data-lang", "data-language"} {
		if v := strings.ToLower(strings.TrimSpace(attr(n, k))); v != "" && codeLanguageClass.MatchString("language-"+v) {
			return v
		}
	}
	for _, tok := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		for _, prefix := range []string{"language-", "lang-", "highlight-source-", "highlight-"} {
			if v, ok := strings.CutPrefix(tok, prefix); ok && v != "" && codeLanguageClass.MatchString("language-"+v) {
				return v
			}
		}
	}
	return ""
}

// markCodeLanguages leaves on each code block only its language, as
// class="language-…" on the <code> (and a lone <pre>).
func markCodeLanguages(root *html.Node) {
	elements(root, func(n *html.Node) bool {
		if n.DataAtom != atom.Pre {
			return true
		}
		lang := codeLanguage(n)
		code := findFirst(n, atom.Code)
		if code != nil && lang == "" {
			lang = codeLanguage(code)
		}
		if lang == "" && n.Parent != nil && n.Parent.Type == html.ElementNode {
			lang = codeLanguage(n.Parent) // a highlighter's wrapper
		}
		if lang == "" {
			return false
		}
		if code != nil {
			setAttr(code, "class", "language-"+lang)
		} else {
			setAttr(n, "class", "language-"+lang)
		}
		return false
	})
}

// lazyAttrs hold the real image URL on lazily loaded images.
var lazyAttrs = []string{"data-src", "data-lazy-src", "data-original", "data-url", "data-hi-res-src", "data-lazy"}

// absolutize makes links and images absolute and picks the real source of
// lazily loaded images.
func absolutize(root *html.Node, base *url.URL) {
	elements(root, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.A:
			if href := attr(n, "href"); href != "" {
				if strings.HasPrefix(strings.TrimSpace(href), "#") {
					setAttr(n, "href", "")
				} else {
					setAttr(n, "href", absolute(base, href))
				}
			}
		case atom.Img:
			src := attr(n, "src")
			if src == "" || strings.HasPrefix(src, "data:") {
				for _, k := range lazyAttrs {
					if v := attr(n, k); v != "" && !strings.HasPrefix(v, "data:") {
						src = v
						break
					}
				}
			}
			if src == "" || strings.HasPrefix(src, "data:") {
				if ss := attr(n, "srcset"); ss == "" {
					ss = attr(n, "data-srcset")
					if ss != "" {
						src = strings.Fields(strings.SplitN(ss, ",", 2)[0])[0]
					}
				} else {
					src = strings.Fields(strings.SplitN(ss, ",", 2)[0])[0]
				}
			}
			setAttr(n, "src", absolute(base, src))
			if alt := attr(n, "alt"); alt != "" {
				// Alt text on one line, without the padding pages leave
				// around it: "![ A hospital…" is not how a reader writes it.
				setAttr(n, "alt", strings.Join(strings.Fields(alt), " "))
			}
		}
		return true
	})
}
