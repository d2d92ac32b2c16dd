package crawl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit"
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
// returns what each page was told, once the run's pages are done.
func finishGroup(l *groupLedger, keys ...string) []ports.ChargeResult {
	cr := &run{r: &Runner{d: RunnerDeps{Ledger: l}}, writes: make(chan pageWrite, len(keys)), wake: make(chan struct{}, 1)}
	out := make([]ports.ChargeResult, len(keys))
	for i, k := range keys {
		if err := cr.write(context.Background(), ports.KeyedCharge{Key: k}, func(r ports.ChargeResult) { out[i] = r }); err != nil {
			panic(err)
		}
	}
	done := make(chan struct{})
	go func() { defer close(done); cr.finisher(context.Background()) }()
	cr.pending.Wait()
	close(cr.writes)
	<-done
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

// heldLedger holds each group's commit until release is closed.
type heldLedger struct {
	groupLedger
	release chan struct{}
}

func (l *heldLedger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	<-l.release
	return l.groupLedger.ChargeEach(ctx, h, items)
}

// A page's worker goes on once its page is handed to the finisher; what
// follows the commit (its event) runs after it, and the run's end waits
// for that.
func TestWriteDoesNotWaitForTheCommit(t *testing.T) {
	l := &heldLedger{release: make(chan struct{})}
	cr := &run{r: &Runner{d: RunnerDeps{Ledger: l}}, writes: make(chan pageWrite, 1), wake: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() { defer close(done); cr.finisher(context.Background()) }()
	told := make(chan ports.ChargeResult, 1)
	returned := make(chan error, 1)
	go func() {
		returned <- cr.write(context.Background(), ports.KeyedCharge{Key: "c:1"}, func(r ports.ChargeResult) { told <- r })
	}()
	select {
	case err := <-returned:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("write waited for the commit")
	}
	select {
	case r := <-told:
		t.Fatalf("told %+v before the commit", r)
	case <-time.After(50 * time.Millisecond):
	}
	ended := make(chan struct{})
	go func() { cr.pending.Wait(); close(ended) }()
	select {
	case <-ended:
		t.Fatal("the run's pages counted done before their commit")
	case <-time.After(50 * time.Millisecond):
	}
	close(l.release)
	if r := <-told; !r.Charged || r.Err != nil {
		t.Fatalf("told %+v after the commit", r)
	}
	<-ended
	select {
	case <-cr.wake:
	case <-time.After(5 * time.Second):
		t.Fatal("the loop was not woken after the commit")
	}
	close(cr.writes)
	<-done
}

// refusingLedger refuses the charged pages for want of credits and
// writes the uncharged ones.
type refusingLedger struct{ groupLedger }

func (l *refusingLedger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	out, err := l.groupLedger.ChargeEach(ctx, h, items)
	for i, it := range items {
		if it.Key != "" {
			out[i] = ports.ChargeResult{Err: failure.E("test", failure.InsufficientCredits, "no credits")}
		}
	}
	return out, err
}

// A page refused at its commit is written again as failed from what
// follows the commit: the run's end waits for that second write too.
func TestRefusedPageWrittenAgainBeforeTheRunEnds(t *testing.T) {
	l := &refusingLedger{}
	cr := &run{r: &Runner{d: RunnerDeps{Ledger: l, Clock: testkit.NewClock(time.Now())}}, writes: make(chan pageWrite, 1), wake: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() { defer close(done); cr.finisher(context.Background()) }()
	var refused, failed bool
	err := cr.write(context.Background(), ports.KeyedCharge{Key: "c:1"}, func(r ports.ChargeResult) {
		refused = failure.Is(r.Err, failure.InsufficientCredits)
		if err := cr.finishURL(context.Background(), ports.CrawlOutcome{}, ports.CrawlFailed, "unavailable", func() { failed = true }); err != nil {
			t.Error(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	cr.pending.Wait()
	close(cr.writes)
	<-done
	if !refused || !failed || len(l.groups) != 2 || l.groups[1][0].Charge.Outcome.URL.State != ports.CrawlFailed {
		t.Fatalf("refused %v, failed written %v, groups %v", refused, failed, l.groups)
	}
}
