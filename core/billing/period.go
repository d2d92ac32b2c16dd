package billing

import "time"

// AddMonths moves t by n calendar months, keeping the clock time and clamping
// the day to the end of a shorter month: Jan 31 + 1 month is Feb 28 (or 29).
func AddMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	if d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1)
}

// PeriodAt returns the start and end of the monthly period containing now for
// a subscription anchored at anchor. Periods are anchor + k months, counted
// from the anchor so a 31st keeps renewing on month ends without drifting.
func PeriodAt(anchor, now time.Time) (start, next time.Time) {
	if now.Before(anchor) {
		return anchor, AddMonths(anchor, 1)
	}
	y1, m1, _ := anchor.Date()
	y2, m2, _ := now.Date()
	k := (y2-y1)*12 + int(m2-m1)
	for k > 0 && AddMonths(anchor, k).After(now) {
		k--
	}
	for !AddMonths(anchor, k+1).After(now) {
		k++
	}
	return AddMonths(anchor, k), AddMonths(anchor, k+1)
}
