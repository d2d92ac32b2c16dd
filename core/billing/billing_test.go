package billing_test

import (
	"math"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/ports"
)

func date(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }

func TestPlansMatchSpec(t *testing.T) {
	want := map[string][2]int64{"basic": {6000, 1}, "pro": {20000, 3}, "business": {90000, 5}}
	for name, w := range want {
		p, ok := billing.DefaultPlans().ByName(name)
		if !ok || p.MonthlyCredits != w[0] || int64(p.MaxTokens) != w[1] {
			t.Errorf("%s = %+v", name, p)
		}
	}
	for _, n := range []string{"", "none", " NONE "} {
		if p, ok := billing.DefaultPlans().ByName(n); !ok || p.Name != "" || p.MaxTokens != 1 {
			t.Errorf("PlanByName(%q) = %+v %v", n, p, ok)
		}
	}
	if _, ok := billing.DefaultPlans().ByName("gold"); ok {
		t.Error("unknown plan accepted")
	}
}

func TestCostTable(t *testing.T) {
	for _, c := range []struct {
		svc  billing.ServiceType
		cost int64
	}{{billing.Scrape, 1}, {billing.Content, 2}, {billing.BulkContent, 2}, {billing.Map, 3}, {billing.Serp, 5}, {billing.SerpContent, 5}, {billing.Prompt, 10}} {
		if got := billing.Cost(c.svc); got != c.cost {
			t.Errorf("cost of %s = %d, want %d", c.svc, got, c.cost)
		}
	}
	for n, want := range map[int]int64{0: 5, 1: 7, 10: 25, 50: 105} {
		if got := billing.SerpContentCost(n); got != want {
			t.Errorf("SerpContentCost(%d) = %d, want %d", n, got, want)
		}
	}
	got := billing.PreviewableTypes()
	if len(got) != 6 || got[0] != "scrape" || got[1] != "content" || got[2] != "crawl" || got[3] != "serp" || got[4] != "prompt" || got[5] != "extract" {
		t.Errorf("previewable = %v", got)
	}
}

func TestAddMonths(t *testing.T) {
	for _, c := range []struct {
		in   time.Time
		n    int
		want time.Time
	}{
		{date(2026, 1, 15, 9), 1, date(2026, 2, 15, 9)},
		{date(2026, 1, 31, 9), 1, date(2026, 2, 28, 9)},
		{date(2028, 1, 31, 9), 1, date(2028, 2, 29, 9)},
		{date(2026, 1, 31, 9), 2, date(2026, 3, 31, 9)},
		{date(2026, 12, 31, 0), 1, date(2027, 1, 31, 0)},
		{date(2026, 3, 31, 0), 1, date(2026, 4, 30, 0)},
		{date(2026, 5, 10, 0), 12, date(2027, 5, 10, 0)},
	} {
		if got := billing.AddMonths(c.in, c.n); !got.Equal(c.want) {
			t.Errorf("AddMonths(%v, %d) = %v, want %v", c.in, c.n, got, c.want)
		}
	}
}

func TestPeriodAtDoesNotDrift(t *testing.T) {
	anchor := date(2026, 1, 31, 12)
	for _, c := range []struct{ now, start, next time.Time }{
		{date(2026, 1, 31, 12), date(2026, 1, 31, 12), date(2026, 2, 28, 12)},
		{date(2026, 2, 28, 11), date(2026, 1, 31, 12), date(2026, 2, 28, 12)},
		{date(2026, 2, 28, 12), date(2026, 2, 28, 12), date(2026, 3, 31, 12)},
		{date(2026, 3, 31, 13), date(2026, 3, 31, 12), date(2026, 4, 30, 12)},
		{date(2027, 2, 1, 0), date(2027, 1, 31, 12), date(2027, 2, 28, 12)},
		{date(2025, 1, 1, 0), anchor, date(2026, 2, 28, 12)},
	} {
		start, next := billing.PeriodAt(anchor, c.now)
		if !start.Equal(c.start) || !next.Equal(c.next) {
			t.Errorf("PeriodAt(now=%v) = %v..%v, want %v..%v", c.now, start, next, c.start, c.next)
		}
	}
}

func state(plan string, anchor time.Time, allowanceUsed, topup int64) ports.CreditState {
	return ports.CreditState{AccountID: 1, Plan: plan, PlanAnchor: &anchor, PeriodStart: &anchor, Used: allowanceUsed, AllowanceUsed: allowanceUsed, TopUp: topup}
}

func TestRenewResetsAllowanceKeepsTopUps(t *testing.T) {
	anchor := date(2026, 1, 10, 0)
	s := state("basic", anchor, 5900, 300)
	if _, changed := billing.Renew(s, date(2026, 2, 9, 23)); changed {
		t.Error("renewed before the period ended")
	}
	r, changed := billing.Renew(s, date(2026, 2, 10, 0))
	if !changed || r.Used != 0 || r.AllowanceUsed != 0 || r.TopUp != 300 || !r.PeriodStart.Equal(date(2026, 2, 10, 0)) {
		t.Errorf("Renew = %+v, changed %v", r, changed)
	}
	if _, changed := billing.Renew(r, date(2026, 2, 20, 0)); changed {
		t.Error("renewed twice in one period")
	}
	none := ports.CreditState{TopUp: 40}
	if _, changed := billing.Renew(none, date(2030, 1, 1, 0)); changed {
		t.Error("an account without plan renewed")
	}
}

func TestSpendAllowanceBeforeTopUps(t *testing.T) {
	anchor := date(2026, 1, 10, 0)
	for _, c := range []struct {
		name                    string
		allowanceUsed, topup    int64
		spend                   int64
		ok                      bool
		wantAllowanceUsed, want int64
	}{
		{"from allowance", 0, 100, 10, true, 10, 100},
		{"straddles", 5995, 100, 10, true, 6000, 95},
		{"only top-ups left", 6000, 100, 10, true, 6000, 90},
		{"exactly all", 6000, 10, 10, true, 6000, 0},
		{"short", 6000, 9, 10, false, 6000, 9},
		{"negative", 0, 0, -1, false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := state("basic", anchor, c.allowanceUsed, c.topup)
			got, ok := billing.DefaultPlans().Spend(s, c.spend)
			if ok != c.ok || got.AllowanceUsed != c.wantAllowanceUsed || got.TopUp != c.want {
				t.Errorf("Spend = %+v, %v", got, ok)
			}
			if ok && got.Used != s.Used+c.spend {
				t.Errorf("used = %d, want %d", got.Used, s.Used+c.spend)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	anchor := date(2026, 1, 10, 0)
	now := date(2026, 1, 20, 0)
	for _, c := range []struct {
		name       string
		s          ports.CreditState
		balance    int64
		formatted  string
		limit      int64
		used       int64
		threshold  int64
		low        bool
		pct        float64
		hasRenewal bool
	}{
		{"fresh basic", state("basic", anchor, 0, 0), 6000, "6,000", 6000, 0, 1200, false, 0, true},
		{"basic one third", state("basic", anchor, 2000, 0), 4000, "4,000", 6000, 2000, 1200, false, 33.33, true},
		{"low", state("basic", anchor, 4801, 0), 1199, "1,199", 6000, 4801, 1200, true, 80.02, true},
		{"exactly threshold is not low", state("basic", anchor, 4800, 0), 1200, "1,200", 6000, 4800, 1200, false, 80, true},
		{"top-ups on top", state("business", anchor, 0, 1234567), 1324567, "1,324,567", 90000, 0, 18000, false, 0, true},
		{"used beyond allowance caps at 100%", ports.CreditState{Plan: "basic", PlanAnchor: &anchor, PeriodStart: &anchor, Used: 7000, AllowanceUsed: 6000, TopUp: 5}, 5, "5", 6000, 7000, 1200, true, 100, true},
		{"no plan", ports.CreditState{TopUp: 30}, 30, "30", 0, 0, 50, true, 0, false},
		{"stale period renews", state("pro", date(2025, 12, 1, 0), 20000, 0), 20000, "20,000", 20000, 0, 4000, false, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := billing.DefaultPlans().StatusOf(c.s, now)
			if st.Balance != c.balance || st.FormattedBalance != c.formatted || st.Limit != c.limit || st.Used != c.used ||
				st.Threshold != c.threshold || st.IsLow != c.low || st.PercentageUsed != c.pct || (st.NextRenewal != nil) != c.hasRenewal {
				t.Errorf("StatusOf = %+v", st)
			}
		})
	}
	st := billing.DefaultPlans().StatusOf(state("basic", anchor, 0, 0), now)
	if !st.NextRenewal.Equal(date(2026, 2, 10, 0)) {
		t.Errorf("next_renewal = %v", st.NextRenewal)
	}
}

// The status is read on every GET /v1/credits: the period is worked out
// once, and what it allocates is its two strings' worth and the renewal.
func TestStatusAllocations(t *testing.T) {
	anchor, now := date(2026, 1, 10, 0), date(2026, 3, 20, 0)
	s := state("pro", anchor, 1234, 0)
	start := date(2026, 3, 10, 0)
	s.PeriodStart = &start
	if n := testing.AllocsPerRun(100, func() { _ = billing.DefaultPlans().StatusOf(s, now) }); n > 2 {
		t.Errorf("StatusOf allocates %.0f times, want at most 2 (the formatted balance, the next renewal)", n)
	}
}

func TestThresholdFloor(t *testing.T) {
	for limit, want := range map[int64]int64{0: 50, 100: 50, 250: 50, 300: 60, 6000: 1200, 90000: 18000} {
		if got := billing.Threshold(limit); got != want {
			t.Errorf("Threshold(%d) = %d, want %d", limit, got, want)
		}
	}
}

func TestFormatCredits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 6000: "6,000", 90000: "90,000", 1234567: "1,234,567", -1500: "-1,500",
		math.MaxInt64: "9,223,372,036,854,775,807", math.MinInt64: "-9,223,372,036,854,775,808", -100: "-100"} {
		if got := billing.FormatCredits(n); got != want {
			t.Errorf("FormatCredits(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPreviewCost(t *testing.T) {
	svc, _ := billing.ServiceByType(billing.Prompt)
	p := billing.PreviewCost(svc, 3, 25)
	if p.TotalCost != 30 || p.RemainingAfter != -5 || p.CanAfford || p.CreditCostPerRequest != 10 || p.ServiceName != "LLM Prompt" || p.Quantity != 3 || p.CurrentBalance != 25 {
		t.Errorf("preview = %+v", p)
	}
	p = billing.PreviewCost(svc, 2, 20)
	if !p.CanAfford || p.RemainingAfter != 0 {
		t.Errorf("exact balance: %+v", p)
	}
}

func TestPlanLabelAndDefault(t *testing.T) {
	for stored, want := range map[string]string{"": "none", "basic": "basic", "business": "business"} {
		if got := billing.PlanLabel(stored); got != want {
			t.Errorf("PlanLabel(%q) = %q, want %q", stored, got, want)
		}
	}
	if p, ok := billing.DefaultPlans().ByName(billing.PlanLabel("")); !ok || p.Name != "" {
		t.Errorf("the label of no plan does not name it back: %+v %v", p, ok)
	}
	if p, ok := billing.DefaultPlans().ByName(billing.DefaultPlanName); !ok || p.Name == "" {
		t.Errorf("the default plan %q is not a plan: %+v", billing.DefaultPlanName, p)
	}
}
