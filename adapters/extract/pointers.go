package extract

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// teaserLabels introduce a pointer to another article set inside the
// article ("Read also: <title>"). Lower case, without trailing punctuation.
var teaserLabels = []string{
	"read also", "also read", "read more", "see also", "related", "more", "watch", "also see", "don't miss", "must read",
	"lesen sie auch", "lies auch", "siehe auch", "auch interessant", "mehr zum thema", "zum thema", "passend dazu", "weiterlesen",
	"lire aussi", "à lire aussi", "voir aussi", "à voir aussi", "à lire",
	"mire", "mira", "vea", "ver", "ver también", "vea también", "lea también", "lee también", "le puede interesar", "te puede interesar",
	"puedes ver", "también puedes leer", "te recomendamos", "le recomendamos", "leia também", "veja também", "leggi anche", "guarda anche",
	"lees ook", "zie ook", "czytaj także", "zobacz także", "czytaj też", "zobacz też", "läs också", "læs også", "les også",
}

var teaserSet = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range teaserLabels {
		m[s] = true
	}
	return m
}()

const (
	// pointerMaxChars: a longer block is prose that happens to hold a link.
	pointerMaxChars = 250
	// pointerLabelWords: a longer lead-in is a sentence, not a label.
	pointerLabelWords = 5
	// pointerTitleWords: a link of fewer words ("here", "the report") is
	// not another article's title.
	pointerTitleWords = 3
)

// isPointerLine: a short block that is a label and one link filling the
// rest of it ("Read also: <title of another article>", "MIRA: <title>"),
// a pointer to another page set between the article's paragraphs. The
// label is a known teaser phrase, or any short lead-in ending in a colon
// or a bar; nothing but punctuation follows the link.
func isPointerLine(n *html.Node) bool {
	text := strings.TrimSpace(innerText(n))
	if text == "" || runeLen(text) > pointerMaxChars {
		return false
	}
	var link *html.Node
	links := 0
	elements(n, func(c *html.Node) bool {
		if c.DataAtom == atom.A && strings.TrimSpace(innerText(c)) != "" {
			link = c
			links++
			return false
		}
		return true
	})
	if links != 1 {
		return false
	}
	title := strings.TrimSpace(innerText(link))
	if len(strings.Fields(title)) < pointerTitleWords {
		return false
	}
	i := strings.Index(text, title)
	if i <= 0 {
		return false
	}
	if strings.Trim(text[i+len(title):], " \u00a0.…»›→\"'”") != "" {
		return false
	}
	label := strings.TrimSpace(text[:i])
	if len(strings.Fields(label)) > pointerLabelWords {
		return false
	}
	bare := strings.ToLower(strings.TrimRight(label, " \u00a0:|»›→-–—"))
	if teaserSet[strings.Trim(bare, " \u00a0►▶•+")] {
		return true
	}
	return bare != "" && (strings.HasSuffix(label, ":") || strings.HasSuffix(label, "|"))
}

// isLinkLines: a paragraph made of links each alone on its line (separated
// by line breaks), with no words of its own: a list of links written
// without list markup.
func isLinkLines(n *html.Node) bool {
	links := 0
	ok := true
	brSince := true // a break before the first link is not needed
	var walk func(*html.Node)
	walk = func(p *html.Node) {
		for c := p.FirstChild; c != nil && ok; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				if strings.Trim(c.Data, " \u00a0\t\r\n|•·-–—") != "" {
					ok = false
				}
			case c.Type != html.ElementNode:
			case c.DataAtom == atom.Br:
				brSince = true
			case c.DataAtom == atom.A:
				if strings.TrimSpace(innerText(c)) == "" {
					continue
				}
				if !brSince {
					ok = false
					return
				}
				links++
				brSince = false
			case c.DataAtom == atom.Img || c.DataAtom == atom.Picture:
			case isBlock(c):
				ok = false
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return ok && links >= 2
}

// callsToAction are the phrases of a line addressed to the reader that asks
// for a subscription, a follow, a membership or a login to comment, or
// that labels the page as advertising, rather than telling the story: a
// paywall's notice, a channel's plug, an empty comment
// section's prompt. Each phrase comes with the words that are in the lower
// case of every line it matches: a line is matched only against the
// phrases whose words it holds (one expression of them all costs much
// more on a line than the few that can match it).
var ctaPhrases = []struct {
	keys    []string
	pattern string
}{
	{[]string{"subscribe "}, `\bsubscribe (now|to our)\b`},
	{[]string{"please subscribe"}, `\bplease subscribe\b`},
	{[]string{"for the full story"}, `\bfor the full story\b`},
	{[]string{" the full "}, `\bto (view|read|continue reading) the full (story|article)\b`},
	{[]string{"already a subscriber"}, `\balready a subscriber\b`},
	{[]string{"first-time subscribers"}, `\bfirst-time subscribers\b`},
	{[]string{"for the latest "}, `\bfor the latest (news|stories|headlines)\b`},
	{[]string{"follow "}, `\bfollow (us|me|[A-Z][^.]{0,30}) on (twitter|facebook|instagram|x|telegram|whatsapp|linkedin|youtube|tiktok)\b`},
	{[]string{"keep up with "}, `\bkeep up with (us|me) on\b`},
	{[]string{"join "}, `\bjoin (us|our [^.]{0,30}) on (twitter|facebook|instagram|telegram|whatsapp)\b`},
	{[]string{"suscr"}, `\bsuscr[ií]bete\b`},
	{[]string{"guenos en"}, `\bs[ií]guenos en\b`},
	{[]string{"nete "}, `\b[úu]nete (a|desde|en)\b`},
	{[]string{"hazte "}, `\bhazte (miembro|socio)\b`},
	{[]string{"canal de "}, `\bcanal de (telegram|whatsapp|youtube)\b`},
	{[]string{"must be "}, `\b(you )?must be (logged in|registered) to (post a )?comment\b`},
	{[]string{"comment"}, `\bto (post a )?comment,? (you must|please) (log in|sign in|register)\b`},
	{[]string{"para comentar"}, `\bpara comentar,? (debes|tienes que|es necesario|necesitas)\b`},
	{[]string{"kommentieren"}, `\bum (zu )?kommentieren,? (musst du|müssen sie)\b`},
	{[]string{"pour commenter"}, `\bpour commenter,? (vous devez|veuillez)\b`},
	{[]string{"no comments", "keine kommentare", "sin comentarios", "aucun commentaire"}, `^(no comments( yet)?|keine kommentare|sin comentarios|aucun commentaire)\b`},
	{[]string{"be the first to comment"}, `\bbe the first to comment\b`},
	{[]string{" el primero en comentar"}, `\bsé el primero en comentar\b`},
	{[]string{"soyez le premier "}, `\bsoyez le premier à commenter\b`},
	{[]string{" sein"}, `\b(angemeldet|eingeloggt) sein,? um\b`},
	{[]string{"werbung"}, `\b(enthält|enthalten) (unbezahlte |bezahlte )?werbung\b`},
	{[]string{"folg"}, `\bfolg(e|en sie) uns\b`},
	{[]string{"abonniere"}, `\babonniere[n]? sie\b`},
	{[]string{"jetzt abonnieren"}, `\bjetzt abonnieren\b`},
	{[]string{"abonnez-vous"}, `\babonnez-vous\b`},
	{[]string{"suivez-nous"}, `\bsuivez-nous\b`},
	{[]string{"seguici su"}, `\bseguici su\b`},
	{[]string{"iscriviti"}, `\biscriviti\b`},
	{[]string{"assine "}, `\bassine (já|agora)\b`},
	{[]string{"siga-nos"}, `\bsiga-nos\b`},
}

// callsToAction matches any of ctaPhrases, ctaPhraseRes each.
var callsToAction, ctaPhraseRes = func() (*regexp.Regexp, []*regexp.Regexp) {
	var all []string
	var each []*regexp.Regexp
	for _, p := range ctaPhrases {
		all = append(all, p.pattern)
		each = append(each, regexp.MustCompile(`(?i)(`+p.pattern+`)`))
	}
	return regexp.MustCompile(`(?i)(` + strings.Join(all, "|") + `)`), each
}()

// ctaMaxChars: a longer block is prose that mentions a subscription.
const ctaMaxChars = 300

// isCallToAction: a short line asking the reader to subscribe, follow,
// join or log in (callsToAction).
func isCallToAction(text string) bool {
	if runeLen(text) > ctaMaxChars {
		return false
	}
	lower := strings.ToLower(text)
	if !hasAny(lower, ctaKeys) {
		return false
	}
	if strings.ContainsRune(text, 'ſ') {
		// The long s matches an s of the phrases, case folded, and lower
		// case keeps it as it is: the phrases' words cannot tell.
		return callsToAction.MatchString(text)
	}
	for i, p := range ctaPhrases {
		if hasAny(lower, p.keys) && ctaPhraseRes[i].MatchString(text) {
			return true
		}
	}
	return false
}

// ctaKeys: one of these is in every text callsToAction matches; the
// expression runs only on the lines that hold one (it is slow to run on
// every short block of a page).
var ctaKeys = []string{"subscri", "full story", "full article", "for the latest", "follow", "keep up with", "join", "suscr",
	"guenos", "nete", "hazte", "canal de", "folg", "abonn", "suivez", "seguici", "iscriviti", "assine", "siga-nos",
	"comment", "komment", "comentar", "angemeldet", "eingeloggt", "werbung"}

// hasAny: s holds one of keys.
func hasAny(s string, keys []string) bool {
	for _, k := range keys {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

// affiliateNotices are the phrases of a site's notice on its affiliate
// links ("This post may contain affiliate links", "we may earn a
// commission"): a statement about the page's business, set above or
// below the article, not part of it.
var affiliateNotices = regexp.MustCompile(`(?i)(` +
	`\b(this|the|our) (post|article|page|site|content|review|guide)[^.]{0,40}\b(contains?|includes?|uses?|may contain|might contain) (some )?affiliate links|` +
	`\bwe (also )?(may )?use (some )?affiliate links|\b(we|i)( also)?( may| might| will| could)? (earn|receive|get|make) (a |an )?(small )?(affiliate )?(commission|compensation)|` +
	`\bmay earn (us )?(a |an )?(small )?(affiliate )?commission|\bas an amazon associate\b|\bwe may include paid promotion|` +
	`\b(sind|enthält|enthalten) (sogenannte )?»?affiliate-links|\beine provision\b|\bliens d'affiliation|\bliens affiliés|\benlaces de afiliados` +
	`)`)

// isAffiliateNotice: a short line stating the page's affiliate links.
func isAffiliateNotice(text string) bool {
	return runeLen(text) <= ctaMaxChars && hasAny(strings.ToLower(text), affiliateKeys) && affiliateNotices.MatchString(text)
}

// affiliateKeys: one of these is in every text affiliateNotices matches.
var affiliateKeys = []string{"affili", "afiliad", "commission", "compensation", "amazon associate", "paid promotion", "provision"}

// creditLine matches the line naming where an image or a figure comes
// from: a credit label and a colon ("Foto: dpa", "Image: Thinkstock",
// "Quelle: Landesregierung"), or a caption ending in a credit in
// brackets ("... im Überblick. (Foto: Getty)").
var creditLine = regexp.MustCompile(`(?i)^(fotos?|photos?|photo credits?|photograph|bild|bilder|bildquelle|titelbild|credits?|images?|picture|fuente|imagen|source|quelle|crédits? photo|crédit)\s*:|` +
	`\((fotos?|photos?|bild|credit|image|imagen|quelle)\s*:[^)]{1,60}\)$`)

const (
	// creditMaxChars: a longer line is a caption or prose of its own.
	creditMaxChars = 120
	// creditMaxWords: a credit names a person, an agency or a site.
	creditMaxWords = 12
)

// isCreditLine: a short line crediting an image or a figure's source.
func isCreditLine(text string) bool {
	t := strings.TrimSpace(text)
	return strings.Contains(t, ":") && runeLen(t) <= creditMaxChars && len(strings.Fields(t)) <= creditMaxWords+1 && creditLine.MatchString(t)
}

// bylineStart opens the line naming who wrote, edited, reviewed or posted
// the article and when ("Reviewed by ...", "Posted by ... on ...").
var bylineStart = regexp.MustCompile(`(?i)^(medically |expert |clinically )?(reviewed|fact[- ]checked|written|edited|updated|posted|verified) by\b|^on behalf of\b|^(geschrieben|veröffentlicht|gepostet) von\b|^(escrito|publicado) por\b|^(écrit|publié) par\b`)

// bylineKeys: one of these is in every text bylineStart matches.
var bylineKeys = []string{" by", "on behalf", " von", " por", " par"}

// bylineMaxChars: a longer line is prose ("Written by hand, the log ...").
const bylineMaxChars = 250

// isBylineLine: a short line naming the article's writer, editor or
// reviewer.
func isBylineLine(text string) bool {
	return runeLen(text) <= bylineMaxChars && hasAny(strings.ToLower(text), bylineKeys) && bylineStart.MatchString(strings.TrimSpace(text))
}

// bylineMaxCount: content with more bylines than this is a page of
// several posts, each keeping its own.
const bylineMaxCount = 2

// dropBylines removes the byline lines of an article (isBylineLine): leaf
// blocks, when there are no more than bylineMaxCount of them.
func dropBylines(root *html.Node) {
	var lines []*html.Node
	elements(root, func(n *html.Node) bool {
		if !isBlock(n) || hasBlockChild(n) {
			return true
		}
		if isBylineLine(innerText(n)) {
			lines = append(lines, n)
		}
		return false
	})
	if len(lines) > bylineMaxCount {
		return
	}
	for _, n := range lines {
		remove(n)
	}
}
