package crawl

import (
	"context"
	"errors"
	"testing"

	"github.com/trawlhq/trawl/ports"
)

// groupLedger records the groups the finisher writes; fail fails them.
type groupLedger struct {
	ports.Ledger
	groups [][]ports.KeyedCharge
	fail   error
}

func (l *groupLedger) ChargeEach(_ context.Context, _ ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	l.groups = append(l.groups, items)
	if l.fail != nil {
		return nil, l.fail
	}
	out := make([]ports.ChargeResult, len(items))
	for i, it := range items {
		out[i] = ports.ChargeResult{Charged: it.Key != ""}
	}
	return out, nil
}

// finishGroup hands the finisher keys as pages waiting together and
// returns what each page was told.
func finishGroup(l *groupLedger, keys ...string) []ports.ChargeResult {
	cr := &run{r: &Runner{d: RunnerDeps{Ledger: l}}, writes: make(chan pageWrite, len(keys))}
	var waits []chan ports.ChargeResult
	for _, k := range keys {
		w := pageWrite{item: ports.KeyedCharge{Key: k}, done: make(chan ports.ChargeResult, 1)}
		cr.writes <- w
		waits = append(waits, w.done)
	}
	close(cr.writes)
	cr.finisher(context.Background())
	var out []ports.ChargeResult
	for _, w := range waits {
		out = append(out, <-w)
	}
	return out
}

func TestFinisherWritesWaitingPagesTogether(t *testing.T) {
	l := &groupLedger{}
	got := finishGroup(l, "c:1", "", "c:3")
	if len(l.groups) != 1 || len(l.groups[0]) != 3 {
		t.Fatalf("groups = %v, want the three pages in one", l.groups)
	}
	if !got[0].Charged || got[1].Charged || !got[2].Charged || got[0].Err != nil {
		t.Fatalf("told %+v", got)
	}
}

func TestFinisherTellsEveryPageOfAFailedCommit(t *testing.T) {
	l := &groupLedger{fail: errors.New("commit failed")}
	for i, r := range finishGroup(l, "c:1", "c:2") {
		if r.Err == nil || r.Charged {
			t.Fatalf("page %d told %+v after a failed commit", i, r)
		}
	}
}
