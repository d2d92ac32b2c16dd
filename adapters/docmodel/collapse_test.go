package docmodel

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// spacesRE is how collapse was written first; the hand-written scan must
// give what it gives.
var spacesRE = regexp.MustCompile(`[\s\x{00a0}]+`)

func TestCollapseMatchesRegexp(t *testing.T) {
	cases := []string{
		"", " ", "a", "a b", "a  b", " a ", "\t\n\f\r a \r\n b\v c",
		"no\u00a0break", "\u00a0\u00a0 \u00a0", "a\u00a0\tb", "\u2003em space\u3000",
		"\xc2", "a\xc2", "\xc2\xa0\xa0", "\xa0\xc2", "\xe0\xc2\xa0x", "\xf0\x90\x80\xc2\xa0 y",
		"trailing \n", "\x00 \x00", "日本 語\n\nテキスト",
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{" ", "\t", "\n", "\v", "\f", "\r", "\u00a0", "\xc2", "\xa0", "\x85", "a", "é", "\u2028", "x", "\xff"}
	for range 20000 {
		s := ""
		for range r.IntN(12) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		if got, want := collapse(s), spacesRE.ReplaceAllString(s, " "); got != want {
			t.Fatalf("collapse(%q) = %q, want %q", s, got, want)
		}
	}
}
