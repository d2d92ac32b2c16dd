package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

// extra are the instruments of credits, renders and deliveries.
type extra struct {
	charged  *prometheus.CounterVec
	released *prometheus.CounterVec

	renders        *prometheus.CounterVec
	renderDuration *prometheus.HistogramVec

	webhooks *prometheus.CounterVec
	mails    *prometheus.CounterVec
}

func newExtra(reg *prometheus.Registry) extra {
	e := extra{
		charged: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_credits_charged_total", Help: "Credits charged, by billed service.",
		}, []string{"service"}),
		released: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_credits_released_total", Help: "Credits held for a call and given back uncharged, by billed service.",
		}, []string{"service"}),
		renders: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_renders_total", Help: "Browser renders, by outcome (ok or the failure kind).",
		}, []string{"outcome"}),
		renderDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "trawl_render_duration_seconds", Help: "Time to render a page in the browser, by outcome.", Buckets: requestBuckets,
		}, []string{"outcome"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_webhook_attempts_total", Help: "Webhook delivery attempts, by outcome (2xx, 4xx, 5xx or why no answer came).",
		}, []string{"outcome"}),
		mails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_mail_attempts_total", Help: "Mail delivery attempts, by outcome (ok or why it failed).",
		}, []string{"outcome"}),
	}
	reg.MustRegister(e.charged, e.released, e.renders, e.renderDuration, e.webhooks, e.mails)
	return e
}

// serviceLabel is the billed service of a call; "other" outside one.
func serviceLabel(ctx context.Context, charged string) string {
	if charged != "" {
		return charged
	}
	if s := credits.ServiceOf(ctx); s != "" {
		return string(s)
	}
	return "other"
}

// Ledger counts the credits l charges and gives back, by service (the
// charge's, or the billed call's that ctx belongs to).
func (m *Metrics) Ledger(l ports.Ledger) ports.Ledger {
	return &ledger{next: l, m: m, spent: map[string]int64{}}
}

type ledger struct {
	next ports.Ledger
	m    *Metrics
	// spent is what part charges and part releases took from holds still
	// open (bulk jobs), so the final release counts only the rest.
	mu    sync.Mutex
	spent map[string]int64
}

func (l *ledger) Reserve(ctx context.Context, r ports.ReserveRequest) (ports.Hold, error) {
	return l.next.Reserve(ctx, r)
}

func (l *ledger) Settle(ctx context.Context, h ports.Hold, c ports.Charge) (ports.Transaction, error) {
	tx, err := l.next.Settle(ctx, h, c)
	if err == nil {
		svc := serviceLabel(ctx, c.ServiceType)
		l.m.charged.WithLabelValues(svc).Add(float64(max(0, c.Credits)))
		l.m.released.WithLabelValues(svc).Add(float64(max(0, l.rest(h)-max(0, c.Credits))))
	}
	return tx, err
}

// rest is what hold h still reserves as far as this process saw, and
// forgets it.
func (l *ledger) rest(h ports.Hold) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	spent := l.spent[h.ID]
	delete(l.spent, h.ID)
	return max(0, h.Amount-spent)
}

func (l *ledger) took(h ports.Hold, n int64) {
	l.mu.Lock()
	l.spent[h.ID] += n
	l.mu.Unlock()
}

func (l *ledger) Release(ctx context.Context, h ports.Hold) error {
	err := l.next.Release(ctx, h)
	if err == nil {
		l.m.released.WithLabelValues(serviceLabel(ctx, "")).Add(float64(l.rest(h)))
	}
	return err
}

func (l *ledger) ChargeHold(ctx context.Context, h ports.Hold, c ports.Charge, key string) (ports.Transaction, bool, error) {
	tx, charged, err := l.next.ChargeHold(ctx, h, c, key)
	if err == nil && charged {
		l.m.charged.WithLabelValues(serviceLabel(ctx, c.ServiceType)).Add(float64(c.Credits))
		l.took(h, c.Credits)
	}
	return tx, charged, err
}

func (l *ledger) ChargeEach(ctx context.Context, h ports.Hold, items []ports.KeyedCharge) ([]ports.ChargeResult, error) {
	results, err := l.next.ChargeEach(ctx, h, items)
	for i, r := range results {
		if r.Err == nil && r.Charged {
			c := items[i].Charge
			l.m.charged.WithLabelValues(serviceLabel(ctx, c.ServiceType)).Add(float64(c.Credits))
			l.took(h, c.Credits)
		}
	}
	return results, err
}

func (l *ledger) ReleasePart(ctx context.Context, h ports.Hold, n int64) error {
	err := l.next.ReleasePart(ctx, h, n)
	if err == nil {
		l.m.released.WithLabelValues(serviceLabel(ctx, "")).Add(float64(n))
		l.took(h, n)
	}
	return err
}

var (
	holdsDesc       = prometheus.NewDesc("trawl_credit_holds_open", "Credit holds not settled, released nor expired, across every node.", nil, nil)
	holdCreditsDesc = prometheus.NewDesc("trawl_credit_holds_open_credits", "Credits reserved by the open holds.", nil, nil)
	holdsUpDesc     = prometheus.NewDesc("trawl_credit_holds_scrape_ok", "1 when the open holds could be read for this scrape.", nil, nil)
)

// Holds reports the open credit holds, read from the store at each scrape.
func (m *Metrics) Holds(open func(ctx context.Context, now time.Time) (count int, credits int64, err error), now func() time.Time) {
	m.reg.MustRegister(&holdsCollector{open: open, now: now})
}

type holdsCollector struct {
	open func(context.Context, time.Time) (int, int64, error)
	now  func() time.Time
}

func (c *holdsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- holdsDesc
	ch <- holdCreditsDesc
	ch <- holdsUpDesc
}

func (c *holdsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, sum, err := c.open(ctx, c.now())
	if err != nil {
		ch <- prometheus.MustNewConstMetric(holdsUpDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(holdsUpDesc, prometheus.GaugeValue, 1)
	ch <- prometheus.MustNewConstMetric(holdsDesc, prometheus.GaugeValue, float64(n))
	ch <- prometheus.MustNewConstMetric(holdCreditsDesc, prometheus.GaugeValue, float64(sum))
}
