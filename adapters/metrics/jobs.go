package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trawlhq/trawl/ports"
)

// JobState is how many unfinished bulk jobs are in a state and when the
// oldest of them was queued.
type JobState struct {
	Status ports.JobStatus
	Count  int
	Oldest time.Time
}

// Jobs reports the bulk queue, read from the store at each scrape: jobs by
// state (queued, processing), the age of the oldest, and the URLs left.
func (m *Metrics) Jobs(states func(context.Context) ([]JobState, error), pending func(context.Context) (int, error), now func() time.Time) {
	m.reg.MustRegister(&jobsCollector{states: states, pending: pending, now: now})
}

var (
	jobsDesc = prometheus.NewDesc("trawl_bulk_jobs", "Unfinished bulk jobs, by state.", []string{"status"}, nil)
	ageDesc  = prometheus.NewDesc("trawl_bulk_oldest_job_age_seconds", "How long ago the oldest unfinished bulk job in a state was queued.", []string{"status"}, nil)
	urlsDesc = prometheus.NewDesc("trawl_bulk_urls_pending", "URLs of unfinished bulk jobs not processed yet.", nil, nil)
	upDesc   = prometheus.NewDesc("trawl_bulk_queue_scrape_ok", "1 when the bulk queue could be read for this scrape.", nil, nil)
)

type jobsCollector struct {
	states  func(context.Context) ([]JobState, error)
	pending func(context.Context) (int, error)
	now     func() time.Time
}

func (c *jobsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- jobsDesc
	ch <- ageDesc
	ch <- urlsDesc
	ch <- upDesc
}

func (c *jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	states, err := c.states(ctx)
	n, perr := c.pending(ctx)
	if err != nil || perr != nil {
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 1)
	// Both states always appear, 0 when empty, so a rate or an alert sees them.
	counts := map[ports.JobStatus]JobState{ports.JobQueued: {}, ports.JobProcessing: {}}
	for _, s := range states {
		counts[s.Status] = s
	}
	now := c.now()
	for status, s := range counts {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(s.Count), string(status))
		age := 0.0
		if s.Count > 0 {
			age = max(0, now.Sub(s.Oldest).Seconds())
		}
		ch <- prometheus.MustNewConstMetric(ageDesc, prometheus.GaugeValue, age, string(status))
	}
	ch <- prometheus.MustNewConstMetric(urlsDesc, prometheus.GaugeValue, float64(n))
}
