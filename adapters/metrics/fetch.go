package metrics

import (
	"context"
	"io"
	"time"

	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Fetcher counts the fetches of f by outcome: ok, or the failure kind. A
// fetcher that streams (the sitemap reader's) streams through it, counted
// alike.
func (m *Metrics) Fetcher(f ports.Fetcher) ports.Fetcher {
	if s, ok := f.(streamer); ok {
		return &streamingFetcher{fetcher{next: f, m: m}, s}
	}
	return &fetcher{next: f, m: m}
}

// streamer is a fetcher that hands the body to a reader as it arrives.
type streamer interface {
	Stream(ctx context.Context, r ports.FetchRequest, read func(ports.FetchResponse, io.Reader) error) error
}

type fetcher struct {
	next ports.Fetcher
	m    *Metrics
}

func (f *fetcher) Fetch(ctx context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
	start := time.Now()
	res, err := f.next.Fetch(ctx, r)
	f.count(start, err)
	return res, err
}

func (f *fetcher) count(start time.Time, err error) {
	outcome := "ok"
	if err != nil {
		outcome = weburl.Kind(err).String()
	}
	f.m.fetches.WithLabelValues(outcome).Inc()
	f.m.fetchDuration.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
}

type streamingFetcher struct {
	fetcher
	stream streamer
}

func (f *streamingFetcher) Stream(ctx context.Context, r ports.FetchRequest, read func(ports.FetchResponse, io.Reader) error) error {
	start := time.Now()
	err := f.stream.Stream(ctx, r, read)
	f.count(start, err)
	return err
}
