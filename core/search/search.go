// Package search holds the search use cases: /v1/serp (results from the
// requested engine, never another) and /v1/serp/content (the same search,
// with the content of the top results extracted under the filtering rules
// of spec 4.6).
package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/domainrule"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Limits of spec 4.5 and 4.6.
const (
	MaxQ              = 100
	MaxLoc            = 100
	MaxHL             = 10
	MaxGL             = 10
	DefaultEngine     = "google"
	MinContent        = 1
	MaxContent        = 50
	DefaultMaxContent = 10
	// ExtractConcurrency bounds the pages fetched at once for one search.
	ExtractConcurrency = 8
)

// Engines lists the engine names in the order they are documented.
var Engines = []string{"google", "bing", "duckduckgo"}

// Request is a search as the caller asked for it.
type Request struct {
	Q, Loc, HL, GL, Engine string
}

// ContentRequest adds the content options of /v1/serp/content.
type ContentRequest struct {
	Request
	// MaxContent is how many result pages to read; nil was not given and is
	// DefaultMaxContent, a given value is validated as it is (0 is refused).
	MaxContent *int
	Filter     domainrule.Filter
	// Render is how result pages are read (empty: auto).
	Render content.RenderMode
	// Options are the result pages' formats and page options.
	Options content.Options
}

func isCode(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// validate checks the search parameters into fe and normalises them.
func (r *Request) validate(fe *failure.FieldErrors) {
	r.Q = strings.TrimSpace(r.Q)
	switch n := utf8.RuneCountInString(r.Q); {
	case n == 0:
		fe.Add("q", "The q field is required.")
	case n > MaxQ:
		fe.Add("q", fmt.Sprintf("The q may not be greater than %d characters.", MaxQ))
	}
	r.Loc = strings.TrimSpace(r.Loc)
	if utf8.RuneCountInString(r.Loc) > MaxLoc {
		fe.Add("loc", fmt.Sprintf("The loc may not be greater than %d characters.", MaxLoc))
	} else if strings.ContainsAny(r.Loc, "\x00\r\n\t") {
		fe.Add("loc", "The loc must be plain text.")
	}
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{{"hl", &r.HL, MaxHL}, {"gl", &r.GL, MaxGL}} {
		*f.v = strings.TrimSpace(*f.v)
		switch {
		case len(*f.v) > f.max:
			fe.Add(f.name, fmt.Sprintf("The %s may not be greater than %d characters.", f.name, f.max))
		case !isCode(*f.v):
			fe.Add(f.name, fmt.Sprintf("The %s must be a language or country code such as en or us.", f.name))
		}
	}
	r.Engine = strings.ToLower(strings.TrimSpace(r.Engine))
	if r.Engine == "" {
		r.Engine = DefaultEngine
	}
	known := false
	for _, e := range Engines {
		known = known || e == r.Engine
	}
	if !known {
		fe.Add("engine", "The selected engine is invalid. Allowed: "+strings.Join(Engines, ", ")+".")
	}
}

// Service runs searches.
type Service struct {
	engines map[string]ports.SearchEngine
	content *content.Service
	biller  *credits.Biller
}

// NewService builds the service over one adapter per engine name.
func NewService(engines []ports.SearchEngine, pages *content.Service, biller *credits.Biller) (*Service, error) {
	if pages == nil || biller == nil {
		return nil, errors.New("search.NewService: content and biller are required")
	}
	m := map[string]ports.SearchEngine{}
	for _, e := range engines {
		if e != nil {
			m[e.Name()] = e
		}
	}
	for _, name := range Engines {
		if m[name] == nil {
			return nil, fmt.Errorf("search.NewService: no adapter for engine %q", name)
		}
	}
	return &Service{engines: m, content: pages, biller: biller}, nil
}

// Results is a search answer; Contents holds, by organic position, the
// content of the results that were fetched.
type Results struct {
	Engine   string
	Results  ports.SearchResults
	Contents map[int]content.Page
	// Cache says whether the results came from the page cache; nil when
	// the server keeps none.
	Cache *cache.Info
}

// SecondsTaken is the search's time_taken: the engine's time in seconds,
// rounded to the hundredth.
func (r Results) SecondsTaken() float64 {
	return math.Round(r.Results.TimeTaken.Seconds()*100) / 100
}

func (s *Service) run(ctx context.Context, r Request) (ports.SearchResults, error) {
	res, err := s.search(ctx, s.engines[r.Engine], ports.SearchQuery{Q: r.Q, Loc: r.Loc, HL: r.HL, GL: r.GL})
	if err != nil {
		// An engine read in a browser (Google's) passes the renderer's
		// typed reason on: worded here, naming the engine field.
		err = weburl.Failure(EngineFailure(err), "engine")
		if failure.KindOf(err) == failure.Internal {
			return res, failure.Unable("search", failure.ReasonEngineFailed, fmt.Sprintf("The %s search could not be completed.", r.Engine), err)
		}
		return res, err
	}
	return res, nil
}

// Search runs /v1/serp for 5 credits.
func (s *Service) Search(ctx context.Context, call credits.Call, r Request) (Results, credits.Receipt, error) {
	var fe failure.FieldErrors
	r.validate(&fe)
	if err := fe.Err("search.Search"); err != nil {
		return Results{}, credits.Receipt{}, err
	}
	call.Service = billing.Serp
	out := Results{Engine: r.Engine}
	ctx = cache.ForAccount(ctx, call.Principal.Account.ID)
	ctx, tracked := s.content.Cache().Track(ctx)
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		res, err := s.run(ctx, r)
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		out.Results = res
		return billing.Cost(billing.Serp), ports.TransactionMetadata{Query: r.Q}, nil
	})
	out.Cache = tracked.Said()
	return out, rc, err
}

// ValidateContent checks the content options.
func (c *ContentRequest) validate(fe *failure.FieldErrors) {
	c.Request.validate(fe)
	if n := c.maxContent(); n < MinContent || n > MaxContent {
		fe.Add("max_content", fmt.Sprintf("The max content must be between %d and %d.", MinContent, MaxContent))
	}
}

func (c *ContentRequest) maxContent() int {
	if c.MaxContent == nil {
		return DefaultMaxContent
	}
	return *c.MaxContent
}

// Fetchable decides whether an organic result's content may be fetched: a
// URL passing the common rules (no raw IP, default port) on an allowed domain.
func Fetchable(link string, f domainrule.Filter) bool {
	u, err := weburl.Parse(link, weburl.Rules{MaxLen: 2048})
	if err != nil {
		return false
	}
	return f.Allows(u.Hostname())
}

// SearchContent runs /v1/serp/content: 5 credits for the search and 2 per
// result whose content was extracted, in one charge.
func (s *Service) SearchContent(ctx context.Context, call credits.Call, r ContentRequest) (Results, credits.Receipt, error) {
	var fe failure.FieldErrors
	r.validate(&fe)
	if err := fe.Err("search.SearchContent"); err != nil {
		return Results{}, credits.Receipt{}, err
	}
	plan, mode, err := s.content.Plan(r.Options, r.Render)
	if err != nil {
		return Results{}, credits.Receipt{}, err
	}
	call.Service = billing.SerpContent
	maxContent := r.maxContent()
	call.MaxCredits = billing.SerpContentCost(maxContent)
	out := Results{Engine: r.Engine, Contents: map[int]content.Page{}}
	ctx = cache.ForAccount(ctx, call.Principal.Account.ID)
	rc, err := s.biller.Run(ctx, call, func(ctx context.Context) (int64, ports.TransactionMetadata, error) {
		serpCtx, serpTracked := s.content.Cache().Track(ctx)
		res, err := s.run(serpCtx, r.Request)
		if err != nil {
			return 0, ports.TransactionMetadata{}, err
		}
		out.Results = res
		out.Cache = serpTracked.Said()
		fetched := s.fetchContents(ctx, res.Organic, maxContent, r.Filter, mode, plan, out.Contents)
		return billing.SerpContentCost(fetched), ports.TransactionMetadata{Query: r.Q}, nil
	})
	return out, rc, err
}

// fetchContents extracts results in position order until maxContent have
// succeeded. Work goes in rounds of as many pages as successes are still
// needed (at most ExtractConcurrency at once), so a success further down is
// only used when one above it failed, and never more than maxContent are
// kept. Failed pages carry their error; skipped results get nothing.
func (s *Service) fetchContents(ctx context.Context, organic []ports.OrganicResult, maxContent int, f domainrule.Filter, mode content.RenderMode, plan content.Plan, out map[int]content.Page) int {
	var queue []ports.OrganicResult
	for _, o := range organic {
		if Fetchable(o.Link, f) {
			queue = append(queue, o)
		}
	}
	successes := 0
	for len(queue) > 0 && successes < maxContent && ctx.Err() == nil {
		need := maxContent - successes
		batch := queue[:min(need, len(queue))]
		queue = queue[len(batch):]
		pages := make([]content.Page, len(batch))
		sem := make(chan struct{}, ExtractConcurrency)
		var wg sync.WaitGroup
		for i, o := range batch {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				link := normalizedLink(o.Link)
				p, err := s.content.ExtractWith(ctx, link, mode, plan)
				if err != nil {
					p = content.Failed(link, p.StatusCode, err)
				}
				pages[i] = p
			}()
		}
		wg.Wait()
		for i, o := range batch {
			out[o.Position] = pages[i]
			if pages[i].Success {
				successes++
			}
		}
	}
	return successes
}

func normalizedLink(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return link
	}
	return u.String()
}
