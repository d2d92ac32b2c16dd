package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Renderer counts the renders of r by outcome, with their duration.
func (m *Metrics) Renderer(r ports.Renderer) ports.Renderer {
	if r == nil {
		return nil
	}
	return &renderer{next: r, m: m}
}

type renderer struct {
	next ports.Renderer
	m    *Metrics
}

func (r *renderer) Render(ctx context.Context, req ports.RenderRequest) (ports.RenderResponse, error) {
	start := time.Now()
	res, err := r.next.Render(ctx, req)
	outcome := "ok"
	if err != nil {
		outcome = weburl.Kind(err).String()
	}
	r.m.renders.WithLabelValues(outcome).Inc()
	r.m.renderDuration.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
	return res, err
}

// Browser reports the browser fleet: restarts (after a number of pages,
// above the memory ceiling, after a crash) and the browser's resident
// memory, read at each scrape.
func (m *Metrics) Browser(restarts func() int64, rss func() int64) {
	m.reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "trawl_browser_restarts_total", Help: "Times the browser was restarted (page count, memory ceiling or crash).",
		}, func() float64 { return float64(restarts()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "trawl_browser_resident_bytes", Help: "Resident memory of the local browser (0 for a remote one).",
		}, func() float64 { return float64(rss()) }),
	)
}
