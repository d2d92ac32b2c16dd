package serp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func savedPage(t *testing.T, engine, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../testdata/serp", engine, name+".html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A block verdict needs the page to be the challenge. A page that says
// there are no results is an empty answer, whatever its query echoes and
// whatever widgets it embeds; the saved challenge pages stay blocks.
func TestBlockVerdictNeedsTheChallenge(t *testing.T) {
	google := savedPage(t, "google", "serpparser-2023-05-no-results-desktop")
	bing := savedPage(t, "bing", "serpparser-2021-01-no-results")
	// The saved pages, with the query they echo (title, search box, "Your
	// search - ... - did not match") replaced by the words of a challenge.
	hostile := "unusual traffic from your computer network /sorry/index g-recaptcha captcha-form before you continue"
	googleEcho := strings.ReplaceAll(google, "324j23i4jkdfjklndsklfmsdkl;fsdfds", hostile)
	// A captcha widget on a result page (a feedback form's, say) is not the page.
	googleWidget := strings.Replace(google, "</body>", `<div class="g-recaptcha" data-sitekey="x"></div><script src="https://www.google.com/recaptcha/api.js"></script></body>`, 1)
	bingEcho := strings.ReplaceAll(bing, "sfl234dsf14sfj323JJJJJfa345fdf45", "verify you are human captcha unusual traffic")
	for name, c := range map[string]struct {
		engine  string
		page    string
		blocked bool
	}{
		"google no results":                {"google", google, false},
		"google no results, hostile query": {"google", googleEcho, false},
		"google no results, widget":        {"google", googleWidget, false},
		"google captcha":                   {"google", savedPage(t, "google", "serpparser-2020-10-recaptcha"), true},
		"bing no results":                  {"bing", bing, false},
		"bing no results, hostile query":   {"bing", bingEcho, false},
		// Built from a saved result page (celina-2026-07-html-caffeine-sleep):
		// its results replaced by the no-result block, its query by the
		// challenge's own words. No saved no-results page exists.
		"duckduckgo no results, hostile query": {"duckduckgo", savedPage(t, "duckduckgo", "constructed-no-results-bots-query"), false},
		"duckduckgo anomaly challenge":         {"duckduckgo", savedPage(t, "duckduckgo", "celina-2026-07-lite-anomaly-captcha"), true},
	} {
		res, err := parsers[c.engine]([]byte(c.page))
		switch {
		case c.blocked && err != ErrBlocked:
			t.Errorf("%s: err = %v, want a block page", name, err)
		case !c.blocked && (err != nil || len(res.Organic) != 0):
			t.Errorf("%s: err = %v, %d results; want an empty answer", name, err, len(res.Organic))
		}
	}
}
