package pdf

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// The regular expressions the hand-written scans replace; each scan must
// give what its expression gives.
var (
	endsSentenceRE = regexp.MustCompile(`[.!?…:;"”»)\]]$`)
)

func randomTexts(alphabet []string) []string {
	r := rand.New(rand.NewPCG(3, 4))
	var out []string
	for range 20000 {
		s := ""
		for range r.IntN(10) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		out = append(out, s)
	}
	return out
}

func TestEndsSentenceMatchesRegexp(t *testing.T) {
	cases := append([]string{"", ".", "end.", "end. ", "end.\n", "what?", "so!", "and…", "note:", "a;", `"q"`, "“q”", "«q»", "(a)", "[a]",
		"a]b", "x", "…\xe2\x80", "\xe2\x80\xa6", "\xa6", "a\xff", "a)\x00"},
		randomTexts([]string{".", "!", "?", "…", ":", ";", `"`, "”", "»", ")", "]", "a", " ", "\n", "\xe2", "\x80", "\xa6", "\xff", "“", "["})...)
	for _, s := range cases {
		if got, want := endsSentence(s), endsSentenceRE.MatchString(s); got != want {
			t.Fatalf("endsSentence(%q) = %v, want %v", s, got, want)
		}
	}
}

// Leaders need four dots: a line with fewer is left as it is, so the
// expression need not run on it.
func TestLeadersNeedFourDots(t *testing.T) {
	for _, s := range randomTexts([]string{".", " ", "\t", "a", "1", "…", "\u00a0", ". ."}) {
		if n := countDots(s); n < 4 && leaders.ReplaceAllString(s, " ") != s {
			t.Fatalf("%q (%d dots) is changed by leaders", s, n)
		}
	}
}

func countDots(s string) (n int) {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			n++
		}
	}
	return n
}
