// Package extractbench scores article extraction the way the public
// article-extraction benchmark does (see testdata/extraction/score.py, which
// this mirrors): texts become multisets of 4-token shingles of \w+ tokens,
// per-page precision and recall are macro-averaged, F1 is their harmonic mean.
package extractbench

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var token = regexp.MustCompile(`[\p{L}\p{N}_]+`)

const shingleN = 4

func shingles(text string) map[string]int {
	toks := token.FindAllString(text, -1)
	out := map[string]int{}
	if len(toks) == 0 {
		return out
	}
	if len(toks) < shingleN {
		out[strings.Join(toks, "\x00")]++
		return out
	}
	for i := 0; i+shingleN <= len(toks); i++ {
		out[strings.Join(toks[i:i+shingleN], "\x00")]++
	}
	return out
}

// PageScore is the normalised counts of one page.
type PageScore struct {
	ID           string
	TP, FP, FN   float64
	Precision    float64
	Recall       float64
	EmptyPredict bool
	TrueShingles int
	PredShingles int
}

// ScorePage compares a prediction with the truth.
func ScorePage(id, truth, pred string) PageScore {
	t, p := shingles(truth), shingles(pred)
	var tp, fp, fn int
	for k, tc := range t {
		pc := p[k]
		tp += min(tc, pc)
		if tc > pc {
			fn += tc - pc
		}
	}
	for k, pc := range p {
		if pc > t[k] {
			fp += pc - t[k]
		}
	}
	s := float64(tp + fp + fn)
	ps := PageScore{ID: id, EmptyPredict: len(p) == 0, TrueShingles: len(t), PredShingles: len(p)}
	if s > 0 {
		ps.TP, ps.FP, ps.FN = float64(tp)/s, float64(fp)/s, float64(fn)/s
	}
	ps.Precision, ps.Recall = 1, 1
	if !(ps.FP == 0 && ps.FN == 0) {
		if ps.TP+ps.FP > 0 {
			ps.Precision = ps.TP / (ps.TP + ps.FP)
		} else {
			ps.Precision = 0
		}
		if ps.TP+ps.FN > 0 {
			ps.Recall = ps.TP / (ps.TP + ps.FN)
		} else {
			ps.Recall = 0
		}
	}
	return ps
}

// Summary is the benchmark's figure for a set of pages.
type Summary struct {
	F1, Precision, Recall float64
	Pages, Empty          int
}

// Aggregate macro-averages page scores as score.py does.
func Aggregate(rows []PageScore) Summary {
	var ps, rs []float64
	empty := 0
	for _, r := range rows {
		if r.TP+r.FP > 0 {
			ps = append(ps, r.Precision)
		}
		if r.TP+r.FN > 0 {
			rs = append(rs, r.Recall)
		}
		if r.EmptyPredict {
			empty++
		}
	}
	mean := func(v []float64) float64 {
		if len(v) == 0 {
			return 0
		}
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v))
	}
	p, r := mean(ps), mean(rs)
	f1 := 0.0
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return Summary{F1: f1, Precision: p, Recall: r, Pages: len(rows), Empty: empty}
}

// Page is one benchmark page.
type Page struct {
	ID    string
	URL   string
	HTML  []byte
	Truth string
	// Type is the page type when the split has a meta.json (WCXB: article,
	// documentation, product, ...), "" otherwise.
	Type string
	// With and Without are the passages the main content must and must not
	// contain, when the split has a snippets.json.
	With, Without []string
}

// Load reads a split laid out as <dir>/html/<id>.html.gz and
// <dir>/ground-truth.json, with the optional <dir>/meta.json (page types)
// and <dir>/snippets.json (with/without passages).
func Load(dir string) ([]Page, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return nil, err
	}
	var truth map[string]struct {
		ArticleBody string `json:"articleBody"`
		URL         string `json:"url"`
	}
	if err := json.Unmarshal(raw, &truth); err != nil {
		return nil, fmt.Errorf("ground truth: %w", err)
	}
	types := map[string]string{}
	if raw, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
		if err := json.Unmarshal(raw, &types); err != nil {
			return nil, fmt.Errorf("meta.json: %w", err)
		}
	}
	snippets := map[string]struct {
		With    []string `json:"with"`
		Without []string `json:"without"`
	}{}
	if raw, err := os.ReadFile(filepath.Join(dir, "snippets.json")); err == nil {
		if err := json.Unmarshal(raw, &snippets); err != nil {
			return nil, fmt.Errorf("snippets.json: %w", err)
		}
	}
	ids := make([]string, 0, len(truth))
	for id := range truth {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	pages := make([]Page, 0, len(ids))
	for _, id := range ids {
		f, err := os.Open(filepath.Join(dir, "html", id+".html.gz"))
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		sn := snippets[id]
		pages = append(pages, Page{ID: id, URL: truth[id].URL, HTML: b, Truth: truth[id].ArticleBody,
			Type: types[id], With: sn.With, Without: sn.Without})
	}
	return pages, nil
}

// SnippetCounts are the snippet matches of one or more pages: a "with"
// passage found is a hit (TP), one missed a miss (FN); a "without" passage
// found is a false positive (FP), one absent a TN. This is the scoring of
// Trafilatura's evaluation and of WCXB's with/without check.
type SnippetCounts struct {
	TP, FN, FP, TN int
}

// Add sums counts.
func (c SnippetCounts) Add(o SnippetCounts) SnippetCounts {
	return SnippetCounts{c.TP + o.TP, c.FN + o.FN, c.FP + o.FP, c.TN + o.TN}
}

// F1 is 2TP / (2TP + FP + FN) over the pooled counts.
func (c SnippetCounts) F1() float64 {
	if d := 2*c.TP + c.FP + c.FN; d > 0 {
		return 2 * float64(c.TP) / float64(d)
	}
	return 0
}

// Precision is TP / (TP + FP).
func (c SnippetCounts) Precision() float64 {
	if d := c.TP + c.FP; d > 0 {
		return float64(c.TP) / float64(d)
	}
	return 0
}

// Recall is TP / (TP + FN).
func (c SnippetCounts) Recall() float64 {
	if d := c.TP + c.FN; d > 0 {
		return float64(c.TP) / float64(d)
	}
	return 0
}

// ScoreSnippets matches a page's passages against a prediction after
// collapsing whitespace; fold also case-folds both sides (WCXB's rule).
func ScoreSnippets(p Page, pred string, fold bool) SnippetCounts {
	norm := func(s string) string {
		s = strings.Join(strings.Fields(s), " ")
		if fold {
			s = strings.ToLower(s)
		}
		return s
	}
	text := norm(pred)
	var c SnippetCounts
	for _, w := range p.With {
		if strings.Contains(text, norm(w)) {
			c.TP++
		} else {
			c.FN++
		}
	}
	for _, w := range p.Without {
		if strings.Contains(text, norm(w)) {
			c.FP++
		} else {
			c.TN++
		}
	}
	return c
}
