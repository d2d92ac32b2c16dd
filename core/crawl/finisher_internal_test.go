package crawl

import (
	"context"
	"errors"
	"runtime"
	"strings"
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
func finishGroup(l ports.Ledger, keys ...string) []ports.ChargeResult {
	cr := &run{r: &Runner{d: RunnerDeps{Ledger: l}}}
	cr.openWrites(len(keys), make(chan struct{}, 1))
	out := make([]ports.ChargeResult, len(keys))
	for i, k := range keys {
		if err := cr.write(context.Background(), ports.KeyedCharge{Key: k}, func(r ports.ChargeResult) { out[i] = r }); err != nil {
			panic(err)
		}
	}
	cr.startFinisher(context.Background())()
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

// heldLedger holds each group's commit until release is closed, and
// with refuse refuses the charged pages for want of credits.
type heldLedger struct {
	groupLedger
	release chan struct{}
	refuse  bool
}

func (l *heldLedger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	<-l.release
	out, err := l.groupLedger.ChargeEach(ctx, h, items)
	for i, it := range items {
		if l.refuse && it.Key != "" {
			out[i] = ports.ChargeResult{Err: failure.E("test", failure.InsufficientCredits, "no credits")}
		}
	}
	return out, err
}

// waitingInWrite waits until n goroutines wait in run.write for a slot.
func waitingInWrite(t *testing.T, n int) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for range 500 {
		stacks := string(buf[:runtime.Stack(buf, true)])
		waiting := 0
		for _, g := range strings.Split(stacks, "\n\n") {
			if strings.Contains(g, "[select") && strings.Contains(g, "crawl.(*run).write(") {
				waiting++
			}
		}
		if waiting >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %d goroutines waiting in write", n)
}

// testRun is a run of n slots over l, its finisher started.
func testRun(l ports.Ledger, n int) (cr *run, end func()) {
	cr = &run{r: &Runner{d: RunnerDeps{Ledger: l, Clock: testkit.NewClock(time.Now())}}}
	cr.openWrites(n, make(chan struct{}, 1))
	return cr, cr.startFinisher(context.Background())
}

// returnsWithin reports whether fn returns within d.
func returnsWithin(d time.Duration, fn func()) bool {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// A page's worker goes on once its page is handed to the finisher; what
// follows the commit (its event) runs after it, and the run's end waits
// for that.
func TestWriteDoesNotWaitForTheCommit(t *testing.T) {
	l := &heldLedger{release: make(chan struct{})}
	cr, end := testRun(l, 1)
	told := make(chan ports.ChargeResult, 1)
	if !returnsWithin(5*time.Second, func() {
		if err := cr.write(context.Background(), ports.KeyedCharge{Key: "c:1"}, func(r ports.ChargeResult) { told <- r }); err != nil {
			t.Error(err)
		}
	}) {
		t.Fatal("write waited for the commit")
	}
	select {
	case r := <-told:
		t.Fatalf("told %+v before the commit", r)
	case <-time.After(50 * time.Millisecond):
	}
	ended := make(chan struct{})
	go func() { end(); close(ended) }()
	select {
	case <-ended:
		t.Fatal("the run ended before its page was committed")
	case <-time.After(50 * time.Millisecond):
	}
	close(l.release)
	if r := <-told; !r.Charged || r.Err != nil {
		t.Fatalf("told %+v after the commit", r)
	}
	<-ended
	select {
	case <-cr.wake:
	default:
		t.Fatal("the loop was not woken after the commit")
	}
}

// At most n pages wait for their commit: the next worker waits for one
// to be written.
func TestPagesWaitingForTheirCommitAreBounded(t *testing.T) {
	l := &heldLedger{release: make(chan struct{})}
	cr, end := testRun(l, 2)
	write := func() {
		if err := cr.write(context.Background(), ports.KeyedCharge{Key: "c:1"}, func(ports.ChargeResult) {}); err != nil {
			t.Error(err)
		}
	}
	for i := range 2 {
		if !returnsWithin(5*time.Second, write) {
			t.Fatalf("write %d of 2 waited", i+1)
		}
	}
	third := make(chan struct{})
	go func() { write(); close(third) }()
	select {
	case <-third:
		t.Fatal("a third page was taken while two wait for their commit")
	case <-time.After(100 * time.Millisecond):
	}
	close(l.release)
	<-third
	end()
}

// A page refused at its commit is written again as failed from what
// follows the commit, never from the finisher itself: with every slot
// taken by the next page, a write made in the finisher would wait for a
// slot only the finisher frees. The run's end waits for that write too.
func TestRefusedPageWrittenAgainBeforeTheRunEnds(t *testing.T) {
	l := &heldLedger{release: make(chan struct{}), refuse: true}
	cr, end := testRun(l, 1)
	var refused, failed bool
	if err := cr.write(context.Background(), ports.KeyedCharge{Key: "c:1"}, func(r ports.ChargeResult) {
		refused = failure.Is(r.Err, failure.InsufficientCredits)
		if err := cr.finishURL(context.Background(), ports.CrawlOutcome{}, ports.CrawlFailed, "unavailable", func() { failed = true }); err != nil {
			t.Error(err)
		}
	}); err != nil {
		t.Fatal(err)
	}
	// The next page waits for the one slot, which it takes as the first
	// page's commit frees it.
	next := make(chan struct{})
	go func() {
		defer close(next)
		if err := cr.write(context.Background(), ports.KeyedCharge{}, func(ports.ChargeResult) {}); err != nil {
			t.Error(err)
		}
	}()
	waitingInWrite(t, 1)
	close(l.release)
	if !returnsWithin(5*time.Second, func() { <-next; end() }) {
		t.Fatal("the run did not end: the refused page's write waited on the finisher")
	}
	if !refused || !failed || len(l.groups) != 3 {
		t.Fatalf("refused %v, failed written %v, groups %v", refused, failed, l.groups)
	}
	n := 0
	for _, g := range l.groups {
		if it := g[0]; it.Key == "" && it.Charge.Outcome != nil && it.Charge.Outcome.URL.State == ports.CrawlFailed {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("groups %v: want the refused page written once more, uncharged and failed", l.groups)
	}
}
