// Package metrics exposes Trawl's Prometheus metrics: requests by route and
// status with their latency, rate-limit decisions, page fetches and browser
// renders by outcome, credits charged and released by service, open holds,
// webhook and mail attempts by outcome, the database pool and the Go
// runtime. Instruments wrap the ports and the
// outermost HTTP handler, so no other package knows about Prometheus.
//
// No label carries a URL, a token, an email or anything else a caller
// chose: routes are the router's patterns, outcomes and groups come from
// fixed sets.
package metrics

import (
	"context"
	"database/sql"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/trawlhq/trawl/adapters/httprec"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

// Metrics holds the registry and the instruments.
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	inFlight        prometheus.Gauge

	rateDecisions *prometheus.CounterVec
	rateDuration  prometheus.Histogram

	fetches       *prometheus.CounterVec
	fetchDuration *prometheus.HistogramVec

	extra
}

// requestBuckets reach two minutes: a sync bulk run or a search with
// content takes that long.
var requestBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}

// New builds the registry with the Go runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_http_requests_total", Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "trawl_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern.", Buckets: requestBuckets,
		}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "trawl_http_requests_in_flight", Help: "HTTP requests being answered.",
		}),
		rateDecisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_ratelimit_decisions_total", Help: "Per-minute limit decisions, by endpoint group and outcome (allowed, refused, error).",
		}, []string{"group", "outcome"}),
		rateDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "trawl_ratelimit_decision_duration_seconds", Help: "Time to take one rate-limit decision.",
			Buckets: []float64{.00001, .00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25},
		}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "trawl_fetches_total", Help: "Page fetches, by outcome (ok or the failure kind).",
		}, []string{"outcome"}),
		fetchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "trawl_fetch_duration_seconds", Help: "Time to fetch a page, by outcome.", Buckets: requestBuckets,
		}, []string{"outcome"}),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestDuration, m.inFlight, m.rateDecisions, m.rateDuration, m.fetches, m.fetchDuration,
	)
	m.extra = newExtra(reg)
	return m
}

// Registry is where the instruments live (for tests and extra collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// unmatched is the route of a request no pattern takes (a 404 or 405): the
// raw path is never a label.
const unmatched = "unmatched"

// HTTP instruments next, the outermost handler: route names the pattern
// that takes a request ("" for none). The series of a route (its latency,
// its count by status) are looked up once and kept, so a request costs a
// map read under a shared lock, not the label hashing of a vector.
func (m *Metrics) HTTP(next http.Handler, route func(*http.Request) string) http.Handler {
	series := &routeSeries{m: m, latency: map[string]prometheus.Observer{}, counts: map[routeCode]prometheus.Counter{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := route(r)
		if p == "" {
			p = unmatched
		}
		m.inFlight.Inc()
		defer m.inFlight.Dec()
		rec := httprec.Recorder{ResponseWriter: w}
		start := time.Now()
		next.ServeHTTP(&rec, r)
		took := time.Since(start).Seconds()
		lat, count := series.of(p, rec.Status)
		lat.Observe(took)
		count.Inc()
	})
}

type routeCode struct {
	route string
	code  int
}

// routeSeries are the request series resolved so far, by route and by
// route and status.
type routeSeries struct {
	m       *Metrics
	mu      sync.RWMutex
	latency map[string]prometheus.Observer
	counts  map[routeCode]prometheus.Counter
}

func (s *routeSeries) of(route string, code int) (prometheus.Observer, prometheus.Counter) {
	if code == 0 {
		code = http.StatusOK // nothing written: net/http answers 200
	}
	s.mu.RLock()
	lat, ok1 := s.latency[route]
	count, ok2 := s.counts[routeCode{route, code}]
	s.mu.RUnlock()
	if ok1 && ok2 {
		return lat, count
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if lat, ok1 = s.latency[route]; !ok1 {
		lat = s.m.requestDuration.WithLabelValues(route)
		s.latency[route] = lat
	}
	if count, ok2 = s.counts[routeCode{route, code}]; !ok2 {
		count = s.m.requests.WithLabelValues(route, strconv.Itoa(code))
		s.counts[routeCode{route, code}] = count
	}
	return lat, count
}

// DB reports a connection pool (open, in use, idle, waits, closes) as
// go_sql_* metrics labelled db_name=name.
func (m *Metrics) DB(db *sql.DB, name string) {
	m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
}

// SharedLimiter is a limiter that falls back to a per-node one.
type SharedLimiter interface {
	Up() bool
	Fallbacks() uint64
}

// Shared reports whether the shared limiter answers and how many decisions
// were taken per node instead.
func (m *Metrics) Shared(s SharedLimiter) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "trawl_ratelimit_backend_up", Help: "1 while the shared rate limiter (Redis) answers, 0 while limits are kept per node.",
		}, func() float64 {
			if s.Up() {
				return 1
			}
			return 0
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "trawl_ratelimit_fallback_decisions_total", Help: "Rate-limit decisions taken by this node alone because the shared limiter did not answer.",
		}, func() float64 { return float64(s.Fallbacks()) }),
	)
}

// Limiter counts the decisions of l.
func (m *Metrics) Limiter(l ports.RateLimiter) ports.RateLimiter {
	return &limiter{next: l, m: m, decisions: map[decision]prometheus.Counter{}}
}

type limiter struct {
	next ports.RateLimiter
	m    *Metrics
	// decisions are the counters resolved so far: a decision is taken on
	// every billed call.
	mu        sync.RWMutex
	decisions map[decision]prometheus.Counter
}

type decision struct{ group, outcome string }

func (l *limiter) counter(d decision) prometheus.Counter {
	l.mu.RLock()
	c, ok := l.decisions[d]
	l.mu.RUnlock()
	if ok {
		return c
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok = l.decisions[d]; !ok {
		c = l.m.rateDecisions.WithLabelValues(d.group, d.outcome)
		l.decisions[d] = c
	}
	return c
}

func (l *limiter) Allow(ctx context.Context, key string, limit int, window time.Duration) (ports.RateDecision, error) {
	start := time.Now()
	d, err := l.next.Allow(ctx, key, limit, window)
	l.m.rateDuration.Observe(time.Since(start).Seconds())
	group := string(ratelimit.GroupOf(key))
	if group == "" {
		group = "other"
	}
	outcome := "allowed"
	switch {
	case err != nil:
		outcome = "error"
	case !d.Allowed:
		outcome = "refused"
	}
	l.counter(decision{group, outcome}).Inc()
	return d, err
}
