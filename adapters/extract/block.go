package extract

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/ports"
)

// A block page is an anti-bot interstitial or an access-denied page served
// in place of the content. The verdict needs the page to BE the challenge:
// it must carry little visible text of its own (a real article that loads a
// captcha widget for its comment form is not a block page), and then show a
// challenge in what a visitor sees or in its structure. A captcha script
// alone proves nothing: ordinary pages load them for their forms.
const (
	// blockMaxVisible is the most visible text (characters of the whole
	// body) a block page has: vendor interstitials carry a sentence or two
	// and a reference number.
	blockMaxVisible = 1500
	// blockMaxMain is the most main-content text a block page yields.
	blockMaxMain = 800
	// blockMaxBytes is the largest block page: interstitials are small
	// documents (a few kilobytes to a few tens), while a storefront that
	// ships a vendor's challenge code inside its own scripts is not.
	blockMaxBytes = 256 << 10
	// widgetMaxVisible is the most visible text of a page whose only sign
	// of a challenge is a captcha widget in its structure.
	widgetMaxVisible = 500
)

var (
	// vendorScripts are inline code of vendors' challenge pages, found in
	// no page they protect.
	vendorScripts = []string{"cf_chl_opt", "window._cf_chl"}
	// vendorLoaders are injected by the same vendors into ordinary pages
	// too: they count only on a page with no text at all.
	vendorLoaders = []string{"challenge-platform/h/", "_incapsula_resource"}
	// vendorWidgets are class and id names of vendors' challenge forms and
	// containers; vendorFrames are frames that serve a challenge.
	vendorWidgets = []string{"px-captcha", "sec-if-cpt-container", "cf-browser-verification", "challenge-form", "cf-challenge"}
	vendorFrames  = []string{"captcha-delivery.com", "challenges.cloudflare.com"}
	// captchaWidgets are class and id names of captcha widgets; captchaFrames
	// frames that load one. Ordinary forms show them too, so they count only
	// on a page with almost no text.
	captchaWidgets = []string{"g-recaptcha", "h-captcha", "cf-turnstile", "captcha"}
	captchaFrames  = []string{"recaptcha", "hcaptcha", "captcha"}
	// challengePhrases are what a challenge or block page says to the visitor.
	challengePhrases = []string{
		"verify you are human", "verify that you are human", "are you a robot", "not a robot",
		"unusual traffic from your computer", "checking your browser", "enable javascript and cookies to continue",
		"please complete the security check", "complete the captcha", "solve the captcha", "bot detection",
		"incapsula incident id", "confirm you are a human", "made by a human",
	}
	deniedPhrases = []string{"access denied", "you don't have permission to access", "request blocked", "request rejected"}
	// blockTitles are the titles of challenge and block pages.
	blockTitles  = []string{"just a moment", "attention required", "are you a robot", "robot check", "security check", "captcha", "human verification", "verify you are human", "one more step", "pardon our interruption"}
	deniedTitles = []string{"access denied", "request rejected", "request blocked", "blocked", "403 forbidden"}
)

// notBlocked is blockReason's answer for a page that is not a block page.
const notBlocked = ports.ExtractNoContent

// blockReason says why a page is a block page (an access-denied page, a
// captcha or a bot-protection challenge), or notBlocked when it is not.
// visibleChars is the visible text of the whole body and mainChars that of
// the main content found; the length tests come first, so the scans of the
// page run only for the few pages short enough to be a challenge.
func blockReason(page []byte, title string, visibleChars, mainChars int) ports.ExtractReason {
	if visibleChars >= blockMaxVisible || mainChars >= blockMaxMain || len(page) > blockMaxBytes {
		return notBlocked
	}
	lower := bytes.ToLower(page)
	for _, m := range vendorScripts {
		if bytes.Contains(lower, []byte(m)) {
			return ports.ExtractChallenge
		}
	}
	if visibleChars < MinTextChars && mainChars < MinTextChars {
		for _, m := range vendorLoaders {
			if bytes.Contains(lower, []byte(m)) {
				return ports.ExtractChallenge
			}
		}
	}
	t := strings.ToLower(strings.TrimSpace(title))
	for _, bt := range deniedTitles {
		if titleIs(t, bt) {
			return ports.ExtractDenied
		}
	}
	for _, bt := range blockTitles {
		if titleIs(t, bt) {
			return ports.ExtractCaptcha
		}
	}
	visible, vendor, widget, article := pageSigns(page)
	if vendor {
		return ports.ExtractChallenge
	}
	for _, p := range deniedPhrases {
		if strings.Contains(visible, p) {
			return ports.ExtractDenied
		}
	}
	for _, p := range challengePhrases {
		if strings.Contains(visible, p) {
			return ports.ExtractCaptcha
		}
	}
	if widget && !article && visibleChars < widgetMaxVisible {
		return ports.ExtractCaptcha
	}
	return notBlocked
}

// titleIs: the title is the phrase, alone or followed by punctuation or a
// separator and the site's name ("Access Denied | Site"), not a title that
// merely starts with the same words ("Blocked drains: what to do").
func titleIs(title, phrase string) bool {
	rest, ok := strings.CutPrefix(title, phrase)
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.ContainsRune(".!?|-–—:·…", []rune(rest)[0])
}

// articleMinWords is the fewest words of a paragraph of prose: a sentence,
// not a label or a button's caption.
const articleMinWords = 6

// pageSigns parses a (short) page again and returns its visible text,
// lower-cased, whether it shows a vendor's challenge or a captcha widget (an
// element named like one or a frame loading one), and whether it shows an
// article of its own: a heading and two paragraphs of prose outside any
// form. A challenge page's only content is its form; a short article whose
// comment form carries the widget is still an article.
func pageSigns(page []byte) (visible string, vendor, widget, article bool) {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return "", false, false, false
	}
	var b strings.Builder
	heading, paragraphs := false, 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			if b.Len() < 20_000 {
				b.WriteString(n.Data)
				b.WriteByte(' ')
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Head:
				return
			case atom.H1, atom.H2, atom.H3:
				heading = heading || !inForm(n)
			case atom.P:
				if len(strings.Fields(innerText(n))) >= articleMinWords && !inForm(n) {
					paragraphs++
				}
			case atom.Iframe:
				src := strings.ToLower(attr(n, "src"))
				vendor = vendor || containsAny(src, vendorFrames)
				widget = widget || containsAny(src, captchaFrames)
			}
			if ci := classID(n); ci != "" {
				vendor = vendor || containsAny(ci, vendorWidgets)
				widget = widget || containsAny(ci, captchaWidgets)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.ToLower(strings.Join(strings.Fields(b.String()), " ")), vendor, widget, heading && paragraphs >= 2
}

// inForm: n is inside a form.
func inForm(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Form {
			return true
		}
	}
	return false
}
