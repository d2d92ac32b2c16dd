package billing_test

import (
	"strings"
	"testing"

	"github.com/trawlhq/trawl/core/billing"
)

func TestNewPlansValidation(t *testing.T) {
	edit := func(f func([]billing.Plan) []billing.Plan) []billing.Plan { return f(billing.DefaultPlanList()) }
	for _, c := range []struct {
		name  string
		list  []billing.Plan
		field string // "" = valid
	}{
		{"defaults", billing.DefaultPlanList(), ""},
		{"one plan", edit(func(l []billing.Plan) []billing.Plan { return l[:1] }), ""},
		{"a free plan", edit(func(l []billing.Plan) []billing.Plan { l[0].MonthlyCredits = 0; return l }), ""},
		{"no plan", nil, "plans"},
		{"empty name", edit(func(l []billing.Plan) []billing.Plan { l[1].Name = ""; return l }), "plans[1].name"},
		{"upper-case name", edit(func(l []billing.Plan) []billing.Plan { l[1].Name = "Pro"; return l }), "plans[1].name"},
		{"none", edit(func(l []billing.Plan) []billing.Plan { l[2].Name = "none"; return l }), "plans[2].name"},
		{"twice", edit(func(l []billing.Plan) []billing.Plan { l[2].Name = "basic"; return l }), "plans[2].name"},
		{"no display name", edit(func(l []billing.Plan) []billing.Plan { l[0].DisplayName = " "; return l }), "plans[0].display_name"},
		{"negative credits", edit(func(l []billing.Plan) []billing.Plan { l[1].MonthlyCredits = -1; return l }), "plans[1].monthly_credits"},
		{"no token", edit(func(l []billing.Plan) []billing.Plan { l[2].MaxTokens = 0; return l }), "plans[2].max_tokens"},
		{"zero a minute", edit(func(l []billing.Plan) []billing.Plan { l[0].PerMinute["scrape"] = 0; return l }), "plans[0].per_minute.scrape"},
		{"missing group", edit(func(l []billing.Plan) []billing.Plan { delete(l[1].PerMinute, "serp"); return l }), "plans[1].per_minute.serp"},
		{"unknown group", edit(func(l []billing.Plan) []billing.Plan { l[0].PerMinute["crawl"] = 5; return l }), "plans[0].per_minute.crawl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := billing.NewPlans(c.list)
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.field != "" && err == nil:
				t.Fatalf("accepted; want an error naming %s", c.field)
			case c.field != "" && !strings.HasPrefix(err.Error(), c.field+" ") && !strings.HasPrefix(err.Error(), c.field+":"):
				t.Fatalf("error %q does not name %s", err, c.field)
			}
		})
	}
}

// The table is a value: what one table says changes nothing in another,
// and a plan the table does not hold is no plan.
func TestPlansAreValues(t *testing.T) {
	list := billing.DefaultPlanList()
	list[0].MonthlyCredits, list[0].MaxTokens, list[0].PerMinute["content"] = 100, 2, 3
	list = append(list[:1], billing.Plan{Name: "team", DisplayName: "Team", MonthlyCredits: 500, MaxTokens: 9, PerMinute: list[1].PerMinute})
	plans, err := billing.NewPlans(list)
	if err != nil {
		t.Fatal(err)
	}
	list[0].PerMinute["content"] = 99 // the table keeps its own copy
	if p := plans.Must("basic"); p.MonthlyCredits != 100 || p.MaxTokens != 2 || plans.Limit("basic", "content") != 3 {
		t.Errorf("basic = %+v", p)
	}
	if d := billing.DefaultPlans(); d.Must("basic").MonthlyCredits != 6000 || d.Limit("basic", "content") != 15 || d.Limit("business", "content") != 180 {
		t.Error("the default table changed")
	}
	if p := plans.Must("pro"); p.Name != "" {
		t.Errorf("pro is not in the table but gave %+v", p)
	}
	if got := strings.Join(plans.Names(), ","); got != "basic,team,none" {
		t.Errorf("names %s", got)
	}
	if got := plans.Balance(state("team", date(2026, 1, 1, 0), 20, 0)); got != 480 {
		t.Errorf("team balance %d, want 480", got)
	}
	if got := plans.StatusOf(state("team", date(2026, 1, 1, 0), 20, 0), date(2026, 1, 10, 0)).Limit; got != 500 {
		t.Errorf("team limit %d, want 500", got)
	}
}

// The zero table is the default one, looked up without being rebuilt: a
// plan's limit is read on every billed request.
func TestZeroPlansLookupAllocatesNothing(t *testing.T) {
	var zero billing.Plans
	if got, want := zero.Limit("pro", "content"), billing.DefaultPlans().Limit("pro", "content"); got != want {
		t.Fatalf("zero table: pro content limit %d, want the default %d", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { _ = zero.Limit("business", "scrape") }); n != 0 {
		t.Errorf("a lookup in the zero table allocates %.0f times, want 0", n)
	}
}
