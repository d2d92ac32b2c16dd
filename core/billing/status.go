package billing

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Renew applies the monthly reset lazily: when now lies past the period the
// counters belong to, they restart at zero. Top-up credits are untouched.
// It reports whether anything changed.
func Renew(s ports.CreditState, now time.Time) (ports.CreditState, bool) {
	if s.Plan == "" || s.PlanAnchor == nil {
		return s, false
	}
	start, _ := PeriodAt(*s.PlanAnchor, now)
	return renewFrom(s, start)
}

// renewFrom restarts the counters of s when they belong to a period
// before the one beginning at start.
func renewFrom(s ports.CreditState, start time.Time) (ports.CreditState, bool) {
	if s.PeriodStart != nil && !s.PeriodStart.Before(start) {
		return s, false
	}
	begun := start // on the heap only when a period is renewed
	s.PeriodStart = &begun
	s.Used = 0
	s.AllowanceUsed = 0
	return s, true
}

// Balance is the allowance left this period plus the top-up credits.
func (t Plans) Balance(s ports.CreditState) int64 {
	left := t.Must(s.Plan).MonthlyCredits - s.AllowanceUsed
	if left < 0 {
		left = 0
	}
	return left + s.TopUp
}

// Spend splits a charge between the allowance (first) and the top-ups. ok is
// false when the balance does not cover it; the state is then unchanged.
func (t Plans) Spend(s ports.CreditState, credits int64) (ports.CreditState, bool) {
	if credits < 0 || t.Balance(s) < credits {
		return s, false
	}
	left := t.Must(s.Plan).MonthlyCredits - s.AllowanceUsed
	if left < 0 {
		left = 0
	}
	fromAllowance := min(credits, left)
	s.AllowanceUsed += fromAllowance
	s.TopUp -= credits - fromAllowance
	s.Used += credits
	return s, true
}

// Status is the credit status object of the spec.
type Status struct {
	Balance          int64
	FormattedBalance string
	Limit            int64
	Used             int64
	IsLow            bool
	Threshold        int64
	PercentageUsed   float64
	NextRenewal      *time.Time
}

// LowThresholdFloor is the smallest low-credit threshold.
const LowThresholdFloor = 50

// Threshold is 20% of the monthly allowance, never below 50.
func Threshold(limit int64) int64 {
	return max(LowThresholdFloor, limit*20/100)
}

// StatusOf derives the credit status of a (renewed) credit row.
func (t Plans) StatusOf(s ports.CreditState, now time.Time) Status {
	var next *time.Time
	if s.Plan != "" && s.PlanAnchor != nil {
		// The period is worked out once, for the renewal and the next one.
		start, n := PeriodAt(*s.PlanAnchor, now)
		s, _ = renewFrom(s, start)
		next = &n
	}
	limit := t.Must(s.Plan).MonthlyCredits
	bal := t.Balance(s)
	st := Status{
		Balance:          bal,
		FormattedBalance: FormatCredits(bal),
		Limit:            limit,
		Used:             s.Used,
		Threshold:        Threshold(limit),
	}
	st.IsLow = bal < st.Threshold
	if limit > 0 {
		pct := float64(s.Used) * 100 / float64(limit)
		st.PercentageUsed = math.Min(100, math.Round(pct*100)/100)
	}
	st.NextRenewal = next
	return st
}

// FormatCredits writes n with comma thousands separators: 90000 -> "90,000".
func FormatCredits(n int64) string {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], n, 10)
	var out [27]byte // 19 digits, 6 commas and a sign at most
	b := out[:0]
	if n < 0 {
		b, d = append(b, '-'), d[1:]
	}
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return string(b)
}

// Preview is the cost preview object of the spec.
type Preview struct {
	ServiceType          string
	ServiceName          string
	CreditCostPerRequest int64
	Quantity             int64
	TotalCost            int64
	CurrentBalance       int64
	RemainingAfter       int64
	CanAfford            bool
}

// PreviewCost prices quantity calls of a service against a balance.
func PreviewCost(svc Service, quantity, balance int64) Preview {
	total := svc.Credits * quantity
	return Preview{
		ServiceType:          string(svc.Type),
		ServiceName:          svc.DisplayName,
		CreditCostPerRequest: svc.Credits,
		Quantity:             quantity,
		TotalCost:            total,
		CurrentBalance:       balance,
		RemainingAfter:       balance - total,
		CanAfford:            balance >= total,
	}
}

// LowBalanceWarning is the X-Monthly-Quota-Warning text for a balance below
// the low threshold of a plan's monthly allowance.
func LowBalanceWarning(balance, limit int64) string {
	return fmt.Sprintf("%s credits left, below the low threshold of %s", FormatCredits(balance), FormatCredits(Threshold(limit)))
}

// Warning is the low-balance warning of a status, "" when the balance is
// above the threshold.
func (s Status) Warning() string {
	if !s.IsLow {
		return ""
	}
	return LowBalanceWarning(s.Balance, s.Limit)
}
