package credits

import (
	"context"
	"sort"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// usageScanLimit bounds how many transactions one usage summary reads.
const usageScanLimit = 20000

// DayUsage is what one UTC day cost, per service.
type DayUsage struct {
	Day       time.Time
	ByService map[string]int64
	Total     int64
}

// Usage is the credits charged per day in the current period (the last 30
// days for an account without a plan), split by service.
type Usage struct {
	From, To time.Time
	Days     []DayUsage
	// Services lists the service names that were charged, largest first.
	Services []string
	Totals   map[string]int64
	Max      int64 // the largest day total
	// Truncated is true when the period held more transactions than are read.
	Truncated bool
}

// UsageWindow is the span a usage summary covers.
func UsageWindow(state ports.CreditState, now time.Time) (from, to time.Time) {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	if state.Plan != "" && state.PlanAnchor != nil {
		start, _ := billing.PeriodAt(*state.PlanAnchor, now)
		return start, now
	}
	return day(now.UTC()).AddDate(0, 0, -29), now
}

// SummarizeUsage adds up the charges among txs that fall in [from, to],
// one bucket per UTC day (every day present, empty ones too).
func SummarizeUsage(txs []ports.Transaction, from, to time.Time) Usage {
	u := Usage{From: from, To: to, Totals: map[string]int64{}}
	first := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.UTC)
	index := map[time.Time]int{}
	for d := first; !d.After(to); d = d.AddDate(0, 0, 1) {
		index[d] = len(u.Days)
		u.Days = append(u.Days, DayUsage{Day: d, ByService: map[string]int64{}})
	}
	for _, t := range txs {
		if t.Credits <= 0 || t.CreatedAt.Before(from) || t.CreatedAt.After(to) {
			continue
		}
		c := t.CreatedAt.UTC()
		i, ok := index[time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.UTC)]
		if !ok {
			continue
		}
		u.Days[i].ByService[t.ServiceName] += t.Credits
		u.Days[i].Total += t.Credits
		u.Totals[t.ServiceName] += t.Credits
	}
	for _, d := range u.Days {
		u.Max = max(u.Max, d.Total)
	}
	for name := range u.Totals {
		u.Services = append(u.Services, name)
	}
	sort.Slice(u.Services, func(i, j int) bool {
		a, b := u.Services[i], u.Services[j]
		if u.Totals[a] != u.Totals[b] {
			return u.Totals[a] > u.Totals[b]
		}
		return a < b
	})
	return u
}

// Usage summarises an account's charges per day and service this period.
func (s *Service) Usage(ctx context.Context, accountID int64) (Usage, error) {
	const op = "credits.Usage"
	now := s.clock.Now()
	state, _, err := s.store.ReadCredits(ctx, accountID, now)
	if err != nil {
		return Usage{}, failure.Wrap(op, err)
	}
	from, to := UsageWindow(state, now)
	var txs []ports.Transaction
	truncated := false
	for offset := 0; ; offset += MaxPerPage {
		page, total, err := s.store.Transactions(ctx, accountID, MaxPerPage, offset)
		if err != nil {
			return Usage{}, failure.Wrap(op, err)
		}
		txs = append(txs, page...)
		// Newest first: once a page reaches before the window, the rest is older.
		if len(page) == 0 || page[len(page)-1].CreatedAt.Before(from) || offset+len(page) >= total {
			break
		}
		if len(txs) >= usageScanLimit {
			truncated = true
			break
		}
	}
	u := SummarizeUsage(txs, from, to)
	u.Truncated = truncated
	return u, nil
}

// EachTransaction calls fn with every transaction of an account, newest
// first, at most limit of them (for exports).
func (s *Service) EachTransaction(ctx context.Context, accountID int64, limit int, fn func(ports.Transaction) error) error {
	const op = "credits.EachTransaction"
	seen := 0
	for offset := 0; seen < limit; offset += MaxPerPage {
		page, _, err := s.store.Transactions(ctx, accountID, min(MaxPerPage, limit-seen), offset)
		if err != nil {
			return failure.Wrap(op, err)
		}
		for _, t := range page {
			if err := fn(t); err != nil {
				return err
			}
		}
		seen += len(page)
		if len(page) < MaxPerPage {
			return nil
		}
	}
	return nil
}
