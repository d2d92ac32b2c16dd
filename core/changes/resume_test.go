package changes_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/testkit"
	"github.com/trawlhq/trawl/testkit/memstore"
)

type lineDiffer struct{}

func (lineDiffer) Unified(_, _, old, new string) string { return "-" + old + "+" + new }

// A job resumed after its node died reads a page again: it compares with
// the snapshot the page was compared with the first time, not with the
// one its first attempt wrote, so the change is not lost.
func TestResumedJobComparesWithTheSameSnapshot(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC))
	tr, err := changes.NewTracker(memstore.New(), lineDiffer{}, clk, func(u *url.URL) string { return u.String() }, 0)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://site.test/p")
	in := func(writer string) context.Context {
		return changes.With(context.Background(), changes.Request{On: true, Account: 1, Writer: writer})
	}
	for _, c := range []struct {
		writer, markdown, want string
	}{
		{"job_1", "first", changes.StatusNew},
		{"job_1", "first", changes.StatusNew}, // job_1 resumed: still new
		{"job_2", "second", changes.StatusChanged},
		{"job_2", "second", changes.StatusChanged}, // job_2 resumed: still changed from first
		{"job_3", "second", changes.StatusSame},
		{"", "third", changes.StatusChanged}, // a single call
		{"", "third", changes.StatusSame},
	} {
		clk.Advance(time.Minute)
		got, err := tr.Compare(in(c.writer), 1, u, "", c.markdown)
		if err != nil || got.Status != c.want {
			t.Fatalf("%s %q: %v %v, want %s", c.writer, c.markdown, got.Status, err, c.want)
		}
		if c.writer == "job_2" && got.Diff != "-first\n+second\n" {
			t.Fatalf("job_2 diff %q", got.Diff)
		}
	}
	// A page gone when a resumed job reads it again: removed, measured from
	// the snapshot the job's first read compared with.
	clk.Advance(time.Minute)
	if _, err := tr.Compare(in("job_4"), 1, u, "", "fourth"); err != nil {
		t.Fatal(err)
	}
	c, found, err := tr.Removed(in("job_4"), 1, u, "")
	if err != nil || !found || c.Status != changes.StatusRemoved || !c.PreviousAt.Equal(time.Date(2026, 6, 15, 12, 7, 0, 0, time.UTC)) {
		t.Fatalf("removed on resume: %+v %v %v", c, found, err)
	}
}
