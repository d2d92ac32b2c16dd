package extract

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/trawlhq/trawl/bench/extractbench"
)

// ctaByExpression is isCallToAction as one expression of every phrase:
// what the phrases' words must not change.
func ctaByExpression(text string) bool {
	return runeLen(text) <= ctaMaxChars && hasAny(strings.ToLower(text), ctaKeys) && callsToAction.MatchString(text)
}

// TestCallsToActionByTheirWords: a line is a call to action by the phrases
// whose words it holds exactly when it is one by the expression of them
// all: on a line of each phrase, in upper case, with the letters case
// folding reads as others (the Kelvin sign, the long s), on lines that
// hold a phrase's words without being one, and on every short block of the
// article pages.
func TestCallsToActionByTheirWords(t *testing.T) {
	lines := []string{
		"Subscribe now for unlimited access.", "Please subscribe to keep reading", "Click here for the full story.",
		"Log in to read the full article", "To continue reading the full story, sign in.", "Already a subscriber? Sign in",
		"Offer for first-time subscribers only", "Sign up for the latest news", "Follow us on Twitter", "Follow The Harbour Gazette on Instagram",
		"Keep up with us on Facebook", "Join our readers' club on WhatsApp", "Join us on Telegram", "¡Suscríbete ya!", "Síguenos en Instagram",
		"Únete a nuestro canal", "Hazte socio hoy", "Canal de YouTube", "You must be logged in to post a comment.",
		"To comment, please log in", "To post a comment you must register.", "Para comentar, debes iniciar sesión", "Um zu kommentieren, musst du angemeldet sein",
		"Pour commenter, vous devez être connecté", "No comments yet", "Keine Kommentare", "Sin comentarios", "Aucun commentaire",
		"Be the first to comment!", "Sé el primero en comentar", "Soyez le premier à commenter", "Du musst eingeloggt sein, um zu antworten",
		"Dieser Artikel enthält unbezahlte Werbung", "Folgen Sie uns auf X", "Abonnieren Sie unseren Newsletter", "Jetzt abonnieren",
		"Abonnez-vous !", "Suivez-nous", "Seguici su Facebook", "Iscriviti alla newsletter", "Assine já", "Siga-nos",
		// The words without the phrase.
		"Following the links, a crawl reads pages by the thousand.", "The followers joined the comments later.", "She had subscribed years ago.",
		"The latest figures follow below.", "Join the two ends of the rope.", "Comments are welcome on the mailing list, in the forum, or here.",
		"Nete was the name of the boat.", "Sein Buch erschien 2020.", "Werbungskosten sind absetzbar.",
		// Case folding: the Kelvin sign is a k, the long s an s.
		"\u212aeep up with us on Instagram", "Keine \u212aommentare", "ſubscribe now", "Pleaſe ſubſcribe", "follow uſ on tiktok", "the ſubscriber followed",
		"ſiga-nos", "no comments ſo far", "Pleaſe ſubſcribe and follow", "Join the club: ſubſcribe now",
	}
	for _, l := range lines {
		for _, v := range []string{l, strings.ToUpper(l), strings.ToLower(l), "  " + l + "  "} {
			if got, want := isCallToAction(v), ctaByExpression(v); got != want {
				t.Errorf("isCallToAction(%q) = %v, the expression says %v", v, got, want)
			}
		}
	}
	var pages []extractbench.Page
	for _, dir := range []string{"../../testdata/extraction/dev", "../../testdata/extraction-wcxb", "../../testdata/extraction-trafilatura"} {
		ps, err := extractbench.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, ps...)
	}
	blocks, calls := 0, 0
	for _, p := range pages {
		doc, err := html.Parse(strings.NewReader(string(p.HTML)))
		if err != nil {
			t.Fatal(err)
		}
		elements(doc, func(n *html.Node) bool {
			if text := innerText(n); runeLen(text) <= ctaMaxChars {
				blocks++
				got, want := isCallToAction(text), ctaByExpression(text)
				if got != want {
					t.Errorf("%s: isCallToAction(%q) = %v, the expression says %v", p.ID, text, got, want)
				}
				if want {
					calls++
				}
			}
			return true
		})
	}
	if blocks < 10_000 || calls == 0 {
		t.Errorf("%d short blocks, %d calls to action: the pages were not read", blocks, calls)
	}
	t.Logf("%d short blocks, %d calls to action", blocks, calls)
}
