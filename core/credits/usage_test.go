package credits_test

import (
	"context"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

func (f *fixture) record(t *testing.T, at time.Time, service string, credits int64) {
	t.Helper()
	err := f.store.WithCredits(context.Background(), f.account.ID, func(tx ports.LedgerTx) error {
		_, err := tx.AddTransaction(ports.Transaction{AccountID: f.account.ID, ServiceType: service, ServiceName: service, Credits: credits, BalanceAfter: 1, CreatedAt: at})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestUsagePerDayAndService(t *testing.T) {
	f := newFixture(t, "pro")                                 // period starts at t0, 2026-03-05 12:00
	f.record(t, t0.Add(-time.Hour), "Scrape", 500)            // before the period: left out
	f.record(t, t0.Add(time.Hour), "Scrape", 10)              // day 1
	f.record(t, t0.Add(2*time.Hour), "Search", 40)            // day 1
	f.record(t, t0.Add(25*time.Hour), "Scrape", 5)            // day 2
	f.record(t, t0.Add(49*time.Hour), "Credit Top-up", -1000) // a top-up is not usage
	f.clock.Set(t0.Add(50 * time.Hour))
	u, err := f.svc.Usage(context.Background(), f.account.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Days) != 3 || !u.Days[0].Day.Equal(time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("days %+v", u.Days)
	}
	if u.Days[0].ByService["Scrape"] != 10 || u.Days[0].ByService["Search"] != 40 || u.Days[0].Total != 50 ||
		u.Days[1].Total != 5 || u.Days[2].Total != 0 || u.Max != 50 {
		t.Fatalf("usage %+v", u.Days)
	}
	if len(u.Services) != 2 || u.Services[0] != "Search" || u.Totals["Scrape"] != 15 {
		t.Fatalf("services %v totals %v", u.Services, u.Totals)
	}
}

func TestUsageWithoutPlanIsThirtyDays(t *testing.T) {
	f := newFixture(t, "")
	from, _ := credits.UsageWindow(ports.CreditState{}, t0)
	if want := time.Date(2026, 2, 4, 0, 0, 0, 0, time.UTC); !from.Equal(want) {
		t.Fatalf("from %v, want %v", from, want)
	}
	u, err := f.svc.Usage(context.Background(), f.account.ID)
	if err != nil || len(u.Days) != 30 || u.Max != 0 {
		t.Fatalf("usage %d days, max %d, %v", len(u.Days), u.Max, err)
	}
}

func TestEachTransactionPages(t *testing.T) {
	f := newFixture(t, "pro")
	for i := range 230 {
		f.record(t, t0.Add(time.Duration(i)*time.Minute), "Scrape", 1)
	}
	var n int
	var last int64 = 1 << 62
	err := f.svc.EachTransaction(context.Background(), f.account.ID, 1000, func(tx ports.Transaction) error {
		if tx.ID >= last {
			t.Fatalf("not newest first: %d after %d", tx.ID, last)
		}
		last = tx.ID
		n++
		return nil
	})
	if err != nil || n != 230 {
		t.Fatalf("saw %d, %v", n, err)
	}
	n = 0
	_ = f.svc.EachTransaction(context.Background(), f.account.ID, 150, func(ports.Transaction) error { n++; return nil })
	if n != 150 {
		t.Fatalf("limit 150 gave %d", n)
	}
}
