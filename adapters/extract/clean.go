package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// boilerLines are whole-block texts that are page furniture, not prose.
var boilerLines = []string{
	"advertisement", "advertisements", "sponsored", "sponsored content", "ad", "ads", "story continues below",
	"story continues below advertisement", "continue reading below", "article continues below", "skip advertisement",
	"share", "share this", "share this article", "share this story", "share on facebook", "share on twitter", "tweet",
	"email", "print", "comments", "comment", "read more", "read more:", "see also", "related", "related:",
	"related articles", "related stories", "more from", "recommended", "you may also like", "follow us",
	"subscribe", "sign up", "sign up for our newsletter", "back to top", "click to enlarge", "enlarge this image",
	"toggle caption", "hide caption", "image", "photo", "video", "loading", "loading...", "close", "menu",
	"listen to this article", "copy link", "copied", "download", "next", "previous",
	"previous post", "next post", "previous article", "next article", "older post", "newer post", "older posts", "newer posts",
	"wird geladen", "wird geladen …", "wird geladen...", "gefällt mir", "print recipe", "rezept drucken", "alle anzeigen", "show all",
	"anzeige", "werbung", "publicidad", "publicité", "pubblicità", "reklama", "advertentie",
}

// likeWidget is the text a blog's like button shows before its script
// runs ("Like Loading...", "Gefällt mir Wird geladen..."), never longer
// than likeWidgetMaxLen bytes.
var likeWidget = regexp.MustCompile(`(?i)^(gefällt mir|like|me gusta|j.aime)\b.{0,3}(wird geladen|loading|lade|cargando|chargement)`)

const likeWidgetMaxLen = 40

var boilerSet = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range boilerLines {
		m[s] = true
	}
	return m
}()

func isBoilerLine(text string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	if boilerSet[strings.TrimRight(t, " :.»›→")] || boilerSet[strings.Trim(t, " -–—*")] || len(t) <= likeWidgetMaxLen && likeWidget.MatchString(t) {
		return true
	}
	n := runeLen(t)
	words := strings.Fields(t)
	switch {
	case n < 300 && (strings.Contains(t, "©") || strings.Contains(t, "all rights reserved") || strings.HasPrefix(t, "copyright")):
		return true // copyright notices
	case strings.HasPrefix(t, "lorem ipsum"):
		return true // a template's placeholder text, left on the page
	case strings.HasSuffix(t, ":") && len(words) <= 2:
		return true // a label ("Trending:") whose list was removed
	case n < 100 && strings.HasPrefix(t, "by ") && len(words) <= 12 && !strings.ContainsAny(t, ".!?\""):
		return true // a byline
	}
	return false
}

// isCaption: figure captions and photo credits describe an image, not the story.
func isCaption(n *html.Node) bool {
	if n.DataAtom == atom.Figcaption {
		return true
	}
	ci := classID(n)
	return ci != "" && (strings.Contains(ci, "caption") || strings.Contains(ci, "credit")) && !containsAny(ci, []string{"article", "body", "content"})
}

// cleanConditionally removes, inside the chosen content, the blocks that do
// not read like the article: link lists, share bars, empty wrappers, image
// galleries without prose, forms. Children are judged first (a wrapper is
// judged after its junk is gone), and each element's measure is summed
// from theirs in the same walk.
func cleanConditionally(root *html.Node) {
	structural := structuralClasses(root)
	var walk func(*html.Node, bool) tally
	walk = func(n *html.Node, inHeading bool) tally {
		var t tally
		// A heading's parts (a term and its type, set in wrappers) are
		// its text: the heading is judged whole.
		inHeading = inHeading || isHeading(n.DataAtom)
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch c.Type {
			case html.TextNode:
				k, commas := countText(c.Data)
				t.st.chars += k
				t.st.commas += commas
			case html.ElementNode:
				ct := walk(c, inHeading)
				if !inHeading && shouldDrop(c, ct, structural) {
					n.RemoveChild(c)
					if c.DataAtom == atom.Form || ct.forms > 0 {
						// The form is gone but its prompt is not: the
						// block that held it is judged as holding it.
						t.lostForms++
					}
				} else {
					t.add(ct, c.DataAtom)
				}
			}
			c = next
		}
		if isLink(n) {
			t.st.linkChars = t.st.chars
		}
		return t
	}
	walk(root, false)
}

// structuralClasses are the class names the content is built of: repeated
// wrappers that together hold a large share of its text (one per section,
// post or item). Whatever such a name says ("widget", "meta"), it is the
// content's own structure, not furniture.
func structuralClasses(root *html.Node) map[string]bool {
	total := 0
	type use struct{ count, chars int }
	uses := map[string]*use{}
	var walk func(n *html.Node, inClass map[string]bool) int
	walk = func(n *html.Node, inClass map[string]bool) int {
		chars := 0
		if n.Type == html.TextNode {
			k, _ := countText(n.Data)
			return k
		}
		cls := ""
		if n.Type == html.ElementNode {
			cls = attr(n, "class")
		}
		outer := cls != "" && !inClass[cls]
		if outer {
			inClass[cls] = true
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			chars += walk(c, inClass)
		}
		if outer {
			delete(inClass, cls)
			u := uses[cls]
			if u == nil {
				u = &use{}
				uses[cls] = u
			}
			u.count++
			u.chars += chars
		}
		return chars
	}
	total = walk(root, map[string]bool{})
	out := map[string]bool{}
	for cls, u := range uses {
		if u.count >= 3 && total > 0 && float64(u.chars) >= 0.3*float64(total) {
			out[cls] = true
		}
	}
	return out
}

// tally is an element's measure and the count of some elements below it.
type tally struct {
	st                                                    textStats
	paras, imgs, pics, lis, headings, pres, quotes, forms int
	lostForms                                             int
}

// add counts in a child element of type a and its tally.
func (t *tally) add(c tally, a atom.Atom) {
	t.st.chars += c.st.chars
	t.st.linkChars += c.st.linkChars
	t.st.commas += c.st.commas
	t.paras += c.paras
	t.imgs += c.imgs
	t.pics += c.pics
	t.lis += c.lis
	t.headings += c.headings
	t.pres += c.pres
	t.quotes += c.quotes
	t.forms += c.forms
	t.lostForms += c.lostForms
	switch a {
	case atom.P:
		t.paras++
	case atom.Img:
		t.imgs++
	case atom.Picture:
		t.pics++
	case atom.Li:
		t.lis++
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		t.headings++
	case atom.Pre:
		t.pres++
	case atom.Blockquote:
		t.quotes++
	case atom.Form:
		t.forms++
	}
}

// inCell: n is set in a list item or a table cell (within a few wrappers
// of it, without a block between).
func inCell(n *html.Node) bool {
	for a, level := n.Parent, 0; a != nil && level < 4; a, level = a.Parent, level+1 {
		switch a.DataAtom {
		case atom.Li, atom.Td, atom.Th:
			return true
		case atom.Span, atom.P, atom.B, atom.Strong, atom.Em, atom.I, atom.Small:
			continue
		}
		return false
	}
	return false
}

// formMaxChars: a block holding a form and less text than this is the
// form's prompt, not prose.
const formMaxChars = 500

// boilerMaxChars: no boilerplate line (isBoilerLine) is this long.
const boilerMaxChars = 400

// shouldDrop judges an element of the content, t being its tally.
func shouldDrop(n *html.Node, t tally, structural map[string]bool) bool {
	st := t.st
	switch n.DataAtom {
	case atom.Div, atom.Section, atom.Ul, atom.Ol, atom.Dl, atom.Table, atom.Figure, atom.Form,
		atom.Header, atom.Span, atom.Li, atom.P, atom.Figcaption:
	case atom.Aside, atom.Nav, atom.Footer:
		return true // tangential by definition
	default:
		return isCaption(n) && st.chars < 400
	}
	if n.DataAtom == atom.Span && inRunningText(n) {
		return false // a link or a phrase inside a sentence
	}
	if isCaption(n) {
		return st.chars < 400
	}
	if st.chars == 0 {
		// Keep images and rules; drop empty wrappers.
		return t.imgs == 0 && t.pics == 0 && n.DataAtom != atom.P
	}
	text := ""
	if st.chars < boilerMaxChars {
		text = innerText(n)
		if isBoilerLine(text) || !hasBlockChild(n) && (isCallToAction(text) || isAffiliateNotice(text) || isCreditLine(text)) {
			return true
		}
	}
	if (n.DataAtom == atom.Blockquote || t.quotes > 0) && holdsQuote(n) {
		return false
	}
	if (n.DataAtom == atom.Pre || t.pres > 0) && st.linkDensity() < 0.5 {
		return false // code, however short and unpunctuated
	}
	weight := classWeight(n)
	if weight < 0 && structural[attr(n, "class")] {
		weight = 0
	}
	ld := st.linkDensity()
	switch n.DataAtom {
	case atom.P, atom.Span:
		if inCell(n) {
			return false // an item's or a cell's text: the list or table is judged as a whole
		}
		// A paragraph that is only a link ("Read more: ...") is navigation.
		return st.chars < 200 && ld > 0.8 || n.DataAtom == atom.P && isLinkLines(n)
	case atom.Li:
		return false
	}
	if st.chars < formMaxChars && (n.DataAtom == atom.Form || t.forms > 0 || t.lostForms > 0 && isSignUpPrompt(n)) {
		return true // a form and its prompt: a newsletter sign-up, a search box
	}
	paras, imgs, lis, headings := t.paras, t.imgs, t.lis, t.headings
	isList := n.DataAtom == atom.Ul || n.DataAtom == atom.Ol || n.DataAtom == atom.Dl
	if st.commas >= 10 && weight >= 0 && ld < 0.6 {
		return false // well-punctuated prose, even with many inline links
	}
	if isList && weight >= 0 && isProseList(n) {
		return false // a list of the article's own, however linked
	}
	if isList && weight >= 0 && isDescribedLinks(n) {
		return false // links the article describes, each in words of its own
	}
	if n.DataAtom == atom.Dl && weight >= 0 && isDescribedTerms(n) {
		return false // a reference of terms (linked) and their descriptions
	}
	if weight >= 0 && isAnnouncedList(n) {
		return false // the list a sentence of the article announces
	}
	switch {
	case weight < 0 && st.chars < 1000:
		return true
	case isList && ld > 0.5:
		return true
	case !isList && lis > paras+1 && ld > 0.3:
		return true
	case weight < 25 && ld > 0.33 && st.chars < 1500:
		return true
	case weight >= 25 && ld > 0.6:
		return true
	case imgs > 1 && paras == 0 && st.chars < 200:
		return true
	case st.chars < 40 && headings == 0 && imgs == 0 && !strings.ContainsAny(text, ".!?") && !isList && n.DataAtom != atom.Table && !announcesList(n, text):
		return true
	}
	return false
}

// cleanGently cleans content made of items (product tiles, listing rows,
// link cards): it drops chrome, boilerplate lines, forms, captions and
// menus (lists of short links), and keeps the items though they are links.
func cleanGently(root *html.Node) {
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode {
				walk(c)
				if dropGently(c) {
					n.RemoveChild(c)
				}
			}
			c = next
		}
	}
	walk(root)
}

func dropGently(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Aside, atom.Nav, atom.Footer, atom.Form:
		return true
	}
	if isCaption(n) {
		return measure(n).chars < 400
	}
	if !isBlock(n) {
		return false
	}
	st := measure(n)
	if st.chars == 0 {
		return findFirst(n, atom.Img) == nil && findFirst(n, atom.Picture) == nil && n.DataAtom != atom.P
	}
	if isBoilerLine(innerText(n)) {
		return true
	}
	if n.DataAtom == atom.Ul || n.DataAtom == atom.Ol {
		// A menu: every item a short link.
		items, chars := 0, 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom == atom.Li {
				items++
				chars += measure(c).chars
			}
		}
		return items >= 3 && st.linkDensity() > 0.8 && chars/items < 25
	}
	return false
}

// inRunningText: an inline element with words of its own block beside it
// (text, or another inline element with text), part of a sentence rather
// than a block of its own; or the whole of an inline parent (emphasis, a
// span, a link) that is.
func inRunningText(n *html.Node) bool {
	for a := n; a != nil && a.Type == html.ElementNode && !isBlock(a); a = a.Parent {
		if wordsBeside(a) {
			return true
		}
	}
	return false
}

// wordsBeside: n has words of its own block beside it.
func wordsBeside(n *html.Node) bool {
	words := func(s *html.Node) (bool, bool) { // has words, stop here
		switch {
		case s.Type == html.TextNode:
			return strings.TrimSpace(s.Data) != "", false
		case s.Type != html.ElementNode || isBlock(s) || s.DataAtom == atom.Br:
			return false, true
		}
		return strings.TrimSpace(innerText(s)) != "", false
	}
	for s := n.PrevSibling; s != nil; s = s.PrevSibling {
		w, stop := words(s)
		if w {
			return true
		}
		if stop {
			break
		}
	}
	for s := n.NextSibling; s != nil; s = s.NextSibling {
		w, stop := words(s)
		if w {
			return true
		}
		if stop {
			break
		}
	}
	return false
}

// orphanMaxRun: more trailing headings than this are a list written as
// headings, not the titles of removed blocks.
const orphanMaxRun = 3

// orphanMaxChars: a heading longer than this is text set in a heading.
const orphanMaxChars = 150

// dropOrphanHeadings removes the headings left at the end of the content
// once the cleaning has removed what they introduced ("Related stories"
// above a list of links, "Comments" above a comment form): headings with
// no text, image or table after them. (A heading followed by another of
// its rank is not judged: pages write grids and lists as runs of them.)
func dropOrphanHeadings(root *html.Node) {
	// The trailing run of headings and of pointers to other articles
	// ("Read also: <title>"), which follow the article's last paragraph.
	var last []*html.Node
	headings := 0
	reset := func() { last, headings = last[:0], 0 }
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				if strings.TrimSpace(c.Data) != "" {
					reset()
				}
			case c.Type != html.ElementNode:
			case (isHeading(c.DataAtom) || c.DataAtom == atom.P || c.DataAtom == atom.Div && !hasBlockChild(c)) && isPointerLine(c):
				last = append(last, c)
			case isHeading(c.DataAtom) && measure(c).chars <= orphanMaxChars:
				last = append(last, c)
				headings++
			case isHeading(c.DataAtom) || c.DataAtom == atom.Img || c.DataAtom == atom.Picture || c.DataAtom == atom.Table || c.DataAtom == atom.Pre:
				reset()
			default:
				walk(c)
			}
		}
	}
	walk(root)
	if headings <= orphanMaxRun { // more is a list written as headings
		for _, h := range last {
			remove(h)
		}
	}
	// A heading of reading suggestions ("Read also") inside the article,
	// whose links were removed: nothing follows it in its section.
	var empty []*html.Node
	elements(root, func(n *html.Node) bool {
		if !isHeading(n.DataAtom) {
			return true
		}
		t := innerText(n)
		if !isEndMatterHeading(t) && !teaserSet[strings.TrimRight(strings.ToLower(strings.TrimSpace(t)), " :.»›→")] {
			return false
		}
		for s := n.NextSibling; s != nil; s = s.NextSibling {
			if s.Type == html.TextNode && strings.TrimSpace(s.Data) != "" ||
				s.Type == html.ElementNode && (measure(s).chars > 0 || findFirst(s, atom.Img) != nil || s.DataAtom == atom.Img) {
				return false
			}
		}
		empty = append(empty, n)
		return false
	})
	for _, h := range empty {
		remove(h)
	}
}

// Repeated runs: a layout that prints its content twice (one copy per
// screen size, a carousel's cloned slides) repeats blocks in runs, while a
// page's own repetitions (a step of a plan, a quotation) are single blocks
// between others.
const (
	// repeatMinChars: shorter blocks (a heading, a date, "Reply") are not
	// compared.
	repeatMinChars = 80
	// repeatMinRun: this many consecutive copies of earlier blocks, or
	// more, are a second print of the content.
	repeatMinRun = 3
	// repeatShare: the runs hold this share of the content's text or more.
	repeatShare = 0.2
)

// dropRepeats removes runs of copies of earlier blocks (repeatMinRun).
func dropRepeats(root *html.Node) {
	seen := map[string]bool{}
	var run, drop []*html.Node
	end := func() {
		if len(run) >= repeatMinRun {
			drop = append(drop, run...)
		}
		run = run[:0]
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch {
			case c.DataAtom == atom.Pre || c.DataAtom == atom.Table:
				end()
			case !isBlock(c) || hasBlockChild(c):
				walk(c)
			default:
				t := innerText(c)
				if runeLen(t) < repeatMinChars {
					continue
				}
				if seen[t] {
					run = append(run, c)
				} else {
					end()
					seen[t] = true
				}
			}
		}
	}
	walk(root)
	end()
	repeated := 0
	for _, c := range drop {
		repeated += measure(c).chars
	}
	if len(drop) == 0 || float64(repeated) < repeatShare*float64(measure(root).chars) {
		return
	}
	for _, c := range drop {
		remove(c)
	}
}

// commentWords name a comment thread.
var commentWords = []string{"comment", "disqus"}

// commentArticleMin: content holding this much text besides a comment
// thread is an article with comments, not a discussion.
const commentArticleMin = 1000

// dropCommentThreads removes from an article the threads of comments
// below it: blocks named as comments, however much prose they hold, when
// the content has an article of its own besides them.
func dropCommentThreads(root *html.Node) {
	total := measure(root).chars
	var threads []*html.Node
	elements(root, func(n *html.Node) bool {
		if n.DataAtom == atom.Pre || n.DataAtom == atom.Code {
			return false // a highlighter's comment tokens are code
		}
		ci := classID(n)
		if ci != "" && containsAny(ci, commentWords) && !containsAny(ci, []string{"article", "content", "body", "main"}) {
			threads = append(threads, n)
			return false
		}
		return true
	})
	in := 0
	for _, n := range threads {
		in += measure(n).chars
	}
	if len(threads) == 0 || total-in < commentArticleMin {
		return
	}
	for _, n := range threads {
		remove(n)
	}
}

// pullQuoteMin: a shorter quotation ("Yes.") may well be said twice.
const pullQuoteMin = 30

// dropPullQuotes removes quotations that repeat the content's own words:
// a pull quote sets a sentence of the article again in large type, so its
// text (without its quotation marks) is found elsewhere in the content.
func dropPullQuotes(root *html.Node) {
	var quotes []*html.Node
	elements(root, func(n *html.Node) bool {
		if n.DataAtom == atom.Blockquote || n.DataAtom == atom.Aside {
			quotes = append(quotes, n)
			return false
		}
		return true
	})
	if len(quotes) == 0 {
		return
	}
	full := innerText(root)
	for _, q := range quotes {
		t := strings.Trim(innerText(q), " \"'“”‘’«»„‚‹›—–-")
		if runeLen(t) < pullQuoteMin {
			continue
		}
		if strings.Count(full, t) >= 2 {
			remove(q)
			full = innerText(root)
		}
	}
}

// endMatterHeadings open the sections a page sets after its article's
// end: the author's biography, a legal notice, reading suggestions. Lower
// case, without trailing punctuation; a heading of at most endMatterMaxWords
// words that equals one or starts with one followed by a space opens such
// a section.
var endMatterHeadings = []string{
	"about the author", "about the authors", "about the reviewer", "about the writer", "about the editor",
	"disclaimer", "legal disclaimer", "medical disclaimer", "read this next", "read next", "up next",
	"related posts", "related reading", "related content", "related articles", "related stories",
	"you might also like", "you may also like", "more stories", "more articles",
	"popular posts", "recent posts", "latest posts", "read also", "also read", "more from", "share this", "share this article", "share this post", "share this recipe", "follow us", "subscribe", "newsletter", "sign up for our newsletter", "get the newsletter", "stay connected", "stay in the loop",
	"über den autor", "über die autorin", "zum autor", "zur autorin", "haftungsausschluss", "lesen sie auch",
	"à propos de l'auteur", "à propos de l’auteur", "avertissement", "lire aussi", "à lire aussi",
	"sobre el autor", "sobre la autora", "sobre o autor", "aviso legal", "lee también", "leia também",
	"leggi anche", "lees ook", "over de auteur", "related topics", "ähnliche beiträge", "ähnliche artikel", "verwandte themen",
	"zum weiterlesen", "mehr zum thema", "weitere artikel", "das könnte sie auch interessieren", "das könnte dich auch interessieren",
	"zobacz także", "czytaj także", "más sobre", "te puede interesar", "le puede interesar", "lea también", "vous aimerez aussi",
	"à lire également", "keine kommentare", "mehr aus", "lust auf mehr", "kommentieren sie",
}

const (
	// endMatterMaxWords: a longer heading is a title of the article's own.
	endMatterMaxWords = 6
	// endMatterMinShare: the section starts after this share of the
	// content's text at least (an article opening on "About the author"
	// is a profile).
	endMatterMinShare = 0.3
)

func isEndMatterHeading(text string) bool {
	t := strings.TrimRight(strings.ToLower(strings.TrimSpace(text)), " :.»›→")
	if t == "" || len(strings.Fields(t)) > endMatterMaxWords {
		return false
	}
	for _, h := range endMatterHeadings {
		if t == h || strings.HasPrefix(t, h+" ") {
			return true
		}
	}
	return false
}

// dropEndMatter removes, from the first end-matter heading, notice or note
// on the writer past endMatterMinShare of the content, that block and
// everything after it.
func dropEndMatter(root *html.Node) {
	total := measure(root).chars
	if total == 0 {
		return
	}
	seen := 0
	var cut *html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && cut == nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				seen += measure(c).chars
			case c.Type != html.ElementNode:
			case (c.DataAtom == atom.P || c.DataAtom == atom.Div && !hasBlockChild(c)) && (isEndMatterNotice(innerText(c)) || isAuthorNote(innerText(c))) && float64(seen) >= endMatterMinShare*float64(total):
				cut = c
				return
			case isHeading(c.DataAtom):
				if float64(seen) >= endMatterMinShare*float64(total) && isEndMatterHeading(innerText(c)) {
					cut = c
					return
				}
				seen += measure(c).chars
			default:
				walk(c)
			}
		}
	}
	walk(root)
	if cut == nil {
		return
	}
	for n := cut; n != nil && n != root; n = n.Parent {
		for s := n.NextSibling; s != nil; {
			next := s.NextSibling
			n.Parent.RemoveChild(s)
			s = next
		}
	}
	remove(cut)
}

// endMatterNotices open a paragraph set after the article: a legal notice
// ("Disclaimer: ..."), its tags, a call to subscribe or donate, the date
// the page was last changed, the licence of its text.
var endMatterNotices = []string{"disclaimer:", "disclosure:", "haftungsausschluss:", "avertissement :", "avertissement:", "aviso legal:",
	"tags:", "filed under:", "posted in:", "schlagwörter:", "étiquettes :", "etiquetas:",
	"become a paid subscriber", "become a member", "subscribe to our", "sign up for our", "support us", "if you enjoyed this",
	"donate to", "subscribe now", "advertising disclosure", "we want to hear what you think", "submit your letter",
	"unterstütze", "unterstützen sie", "jetzt abonnieren", "abonnieren sie", "suscríbete", "abonnez-vous",
	// The page's revision line and licence, set at the foot of
	// documentation and wikis.
	"last updated", "last modified", "this page was last modified", "page last modified", "page last updated",
	"zuletzt aktualisiert", "zuletzt geändert", "dernière mise à jour", "última actualización",
	"except as otherwise noted", "content is available under", "text is available under", "this work is licensed under",
	"this page is licensed under"}

func isEndMatterNotice(text string) bool {
	t := strings.ToLower(text)
	for _, n := range endMatterNotices {
		if strings.HasPrefix(t, n) {
			return true
		}
	}
	return false
}

// authorNotes mark a short note on the writer ("Jane Roe is a freelance
// writer who ...").
var authorNotes = []string{" is a writer", " is a freelance", " is a staff writer", " is an experienced writer", " has written for",
	" is a journalist", " is a reporter", " is a contributing", " is a senior writer", " is a senior editor", " is a staff reporter",
	" is a content writer", " is a contributor", " is an author", " writes about",
	" ist freier journalist", " ist freie journalistin", " ist redakteur", " ist redakteurin", " est journaliste", " es periodista"}

// authorNoteMaxChars: a longer paragraph is the article's own.
const authorNoteMaxChars = 500

func isAuthorNote(text string) bool {
	if runeLen(text) > authorNoteMaxChars {
		return false
	}
	t := strings.ToLower(text)
	for _, n := range authorNotes {
		if i := strings.Index(t, n); i > 0 && i < 40 {
			return true
		}
	}
	return false
}

// proseItemMinWords: a list item this long or longer, ending as a
// sentence does or with words of its own beside its links, is a
// sentence rather than a link's title.
const proseItemMinWords = 5

// isProseList: a list set between two paragraphs of prose, most of whose
// items are sentences (a checklist, steps, tips citing their sources) is
// part of the article however many links its items carry; a list of
// links to elsewhere is a run of titles, and is not set mid-text.
func isProseList(n *html.Node) bool {
	if !isProseParagraph(siblingElement(n, -1)) || !isProseParagraph(siblingElement(n, 1)) {
		return false
	}
	items, sentences := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom != atom.Li {
			continue
		}
		items++
		t := strings.TrimSpace(innerText(c))
		st := measure(c)
		if len(strings.Fields(t)) >= proseItemMinWords &&
			(strings.ContainsAny(lastRune(t), ".!?…;:)\"”") || float64(st.chars-st.linkChars) >= 0.3*float64(st.chars)) {
			sentences++
		}
	}
	return items >= 2 && 4*sentences >= 3*items
}

// describedMinTerms: a definition list of fewer terms is judged as any
// block is.
const describedMinTerms = 2

// isDescribedTerms: a definition list whose descriptions are text of their
// own, mostly unlinked (an API reference's properties and methods, a
// glossary): its terms are often links to their own pages, but the list is
// the page's content, not a list of links to elsewhere.
func isDescribedTerms(n *html.Node) bool {
	terms, described := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.DataAtom {
		case atom.Dt:
			terms++
		case atom.Dd:
			st := measure(c)
			if st.chars >= itemOwnChars && st.linkDensity() < 0.5 {
				described++
			}
		}
	}
	return terms >= describedMinTerms && 2*described >= terms
}

// describedOwnWords: the fewest words of its own (not in its links) of an
// item that describes what it links to.
const describedOwnWords = 4

// isDescribedLinks: a list set after a paragraph of prose or a heading
// ("What's next") whose items each say in words of their own what they
// link to ("Datasets, the top-level container of tables and views"):
// documentation's guides to further reading are part of the page. Lists
// of linked titles (related stories, menus) have no such words.
func isDescribedLinks(n *html.Node) bool {
	if prev := siblingElement(n, -1); !isProseParagraph(prev) && (prev == nil || !isHeading(prev.DataAtom)) {
		return false
	}
	items, described := 0, 0
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom != atom.Li {
			continue
		}
		items++
		if len(strings.Fields(unlinkedText(c))) >= describedOwnWords {
			described++
		}
	}
	return items >= 2 && 4*described >= 3*items
}

// unlinkedText is the text of n outside its links.
func unlinkedText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
				b.WriteByte(' ')
			case c.Type == html.ElementNode && !isLink(c):
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// isProseParagraph: a paragraph of running text, mostly unlinked.
func isProseParagraph(n *html.Node) bool {
	if n == nil || n.DataAtom != atom.P {
		return false
	}
	st := measure(n)
	return st.linkDensity() < 0.5 && len(strings.Fields(innerText(n))) >= 8
}

// siblingElement is the element next to n in direction dir (-1 before,
// 1 after), past text and comments; nil when there is none.
func siblingElement(n *html.Node, dir int) *html.Node {
	for {
		if dir < 0 {
			n = n.PrevSibling
		} else {
			n = n.NextSibling
		}
		if n == nil || n.Type == html.ElementNode {
			return n
		}
		if n.Type == html.TextNode && strings.TrimSpace(n.Data) != "" {
			return nil
		}
	}
}

// isAnnouncedList: n is a list (or a wrapper holding only one) that a
// paragraph of the article announces, ending with a colon ("Many patches
// were sent for review:"): the list is what the sentence goes on to say,
// however linked its items are. A label ("Related:") is not a sentence.
func isAnnouncedList(n *html.Node) bool {
	l := n
	for depth := 0; l.DataAtom != atom.Ul && l.DataAtom != atom.Ol; depth++ {
		c := onlyChild(l)
		if c == nil || depth == 2 {
			return false
		}
		l = c
	}
	items := 0
	for c := l.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom == atom.Li {
			items++
		}
	}
	if items < 2 {
		return false
	}
	a, prev := n, siblingElement(n, -1)
	for depth := 0; prev == nil && depth < 2 && a.Parent != nil && onlyChild(a.Parent) == a; depth++ {
		a = a.Parent
		prev = siblingElement(a, -1)
	}
	for depth := 0; prev != nil && prev.DataAtom != atom.P && depth < 2; depth++ {
		prev = lastChildElement(prev)
	}
	if prev == nil || prev.DataAtom != atom.P {
		return false
	}
	t := strings.TrimSpace(innerText(prev))
	return strings.HasSuffix(t, ":") && len(strings.Fields(t)) >= announceMinWords && measure(prev).linkDensity() < 0.5
}

// announcesList: n, with text t, is a sentence ending with a colon and
// followed by the list it announces.
func announcesList(n *html.Node, t string) bool {
	t = strings.TrimSpace(t)
	if !strings.HasSuffix(t, ":") || len(strings.Fields(t)) < announceMinWords {
		return false
	}
	next := siblingElement(n, 1)
	for depth := 0; next != nil && next.DataAtom != atom.Ul && next.DataAtom != atom.Ol && depth < 2; depth++ {
		next = onlyChild(next)
	}
	return next != nil
}

// announceMinWords: a colon ends a sentence announcing a list only after
// this many words; a shorter one is a label.
const announceMinWords = 4

// onlyChild is n's one element child when it has no other and no text
// of its own; nil otherwise.
func onlyChild(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case c.Type == html.ElementNode:
			if only != nil {
				return nil
			}
			only = c
		case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "":
			return nil
		}
	}
	return only
}

// lastChildElement is n's last element child, nil when it has none.
func lastChildElement(n *html.Node) *html.Node {
	for c := n.LastChild; c != nil; c = c.PrevSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// signUpKeys: the words of a sign-up block's prompt ("Join our newsletter",
// "Get the best stories in your inbox").
var signUpKeys = []string{"newsletter", "subscri", "inbox", "sign up", "signup", "mailing list", "e-mail", "email"}

// isSignUpPrompt: a block whose words ask for a sign-up.
func isSignUpPrompt(n *html.Node) bool {
	return hasAny(strings.ToLower(innerText(n)), signUpKeys)
}
