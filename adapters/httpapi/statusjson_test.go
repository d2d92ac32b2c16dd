package httpapi

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/ports"
)

// toStatusJSON is the status object in the Go client's type: encoding/json
// writing the client's types is the shape the hand-written encoder must
// keep to the byte.
func toStatusJSON(s billing.Status) client.CreditStatus {
	return client.CreditStatus{
		Balance: s.Balance, FormattedBalance: s.FormattedBalance, Limit: s.Limit, Used: s.Used,
		IsLow: s.IsLow, Threshold: s.Threshold, PercentageUsed: s.PercentageUsed, NextRenewal: isoPtr(s.NextRenewal),
	}
}

func creditsJSON(st billing.Status) []byte {
	return encodeJSON(client.Credits{Balance: st.Balance, FormattedBalance: st.FormattedBalance, Limit: st.Limit, Used: st.Used, Status: toStatusJSON(st)})
}

func TestStatusBodiesAreEncodingJSONs(t *testing.T) {
	renewal := time.Date(2026, 7, 15, 12, 30, 45, 123456789, time.FixedZone("X", 3600))
	anchor := time.Date(2025, 1, 31, 8, 0, 0, 0, time.UTC)
	cases := []billing.Status{
		{},
		billing.DefaultPlans().StatusOf(ports.CreditState{AccountID: 1, Plan: "pro", PlanAnchor: &anchor, Used: 777, AllowanceUsed: 700, TopUp: 12345}, renewal),
		{Balance: 90000, FormattedBalance: "90,000", Limit: 90000, Used: 0, Threshold: 18000, NextRenewal: &renewal},
		{Balance: -5, FormattedBalance: "-5", Limit: 6000, Used: 6005, IsLow: true, Threshold: 1200, PercentageUsed: 100},
		{Balance: 1, FormattedBalance: "1", PercentageUsed: 33.33},
		{FormattedBalance: `quote " back \ tab 	 nl
 html <&> é € ` + "\u2028\x7f\xff", PercentageUsed: 1e-7},
		{PercentageUsed: 1e21}, {PercentageUsed: -0.000001}, {PercentageUsed: 123456789.125}, {PercentageUsed: math.SmallestNonzeroFloat64},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		used, limit := rng.Int64N(200000), rng.Int64N(100000)
		pct := 0.0
		if limit > 0 {
			pct = math.Min(100, math.Round(float64(used)*100/float64(limit)*100)/100)
		}
		bal := rng.Int64N(1<<40) - 1<<20
		cases = append(cases, billing.Status{Balance: bal, FormattedBalance: billing.FormatCredits(bal), Limit: limit, Used: used,
			IsLow: rng.IntN(2) == 0, Threshold: billing.Threshold(limit), PercentageUsed: pct})
	}
	for _, st := range cases {
		if got, want := string(creditsBody(st)), string(creditsJSON(st)); got != want {
			t.Errorf("credits body of %+v:\n got %s\nwant %s", st, got, want)
		}
		if got, want := string(statusBody(st)), string(encodeJSON(toStatusJSON(st))); got != want {
			t.Errorf("status body of %+v:\n got %s\nwant %s", st, got, want)
		}
	}
}
