package extractbench

import "testing"

func TestScoreSnippets(t *testing.T) {
	p := Page{With: []string{"The  Tide turns", "absent passage"}, Without: []string{"Subscribe now", "cookie policy"}}
	pred := "Intro.\nthe tide\tturns at noon. Subscribe now!"
	c := ScoreSnippets(p, pred, true)
	if c != (SnippetCounts{TP: 1, FN: 1, FP: 1, TN: 1}) {
		t.Fatalf("folded: %+v", c)
	}
	if c := ScoreSnippets(p, pred, false); c.TP != 0 || c.FP != 1 {
		t.Fatalf("case-sensitive: %+v", c)
	}
	sum := c.Add(SnippetCounts{TP: 3, FN: 0, FP: 0, TN: 2})
	if got, want := sum.F1(), 2*4.0/(2*4+1+1); got != want {
		t.Fatalf("F1 %v, want %v", got, want)
	}
	if sum.Precision() != 0.8 || sum.Recall() != 0.8 {
		t.Fatalf("precision %v recall %v", sum.Precision(), sum.Recall())
	}
}

func TestScorePage(t *testing.T) {
	s := ScorePage("x", "one two three four five", "one two three four")
	if s.Precision != 1 || s.Recall != 0.5 {
		t.Fatalf("%+v", s)
	}
	if e := ScorePage("x", "one two three four", ""); !e.EmptyPredict || e.Recall != 0 {
		t.Fatalf("%+v", e)
	}
}
