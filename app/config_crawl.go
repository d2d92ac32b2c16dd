package app

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/crawl"
)

// CrawlConfig is how crawls treat the sites they read.
type CrawlConfig struct {
	Concurrency   int64         // TRAWL_CRAWL_CONCURRENCY: pages one crawl reads at once on a node (8)
	PerHost       int64         // TRAWL_CRAWL_PER_HOST: requests in flight to one host across the fleet (2)
	Delay         time.Duration // TRAWL_CRAWL_DELAY: least time between two starts on one host (250ms; 0 allowed)
	MaxCrawlDelay time.Duration // TRAWL_CRAWL_MAX_DELAY: cap on a robots.txt Crawl-delay (10s)
	IgnoreRobots  bool          // TRAWL_CRAWL_IGNORE_ROBOTS: the operator switches robots.txt off (false)
	OperatorURL   string        // TRAWL_CRAWL_OPERATOR_URL: named in the crawl's User-Agent (none)
	URLLease      time.Duration // TRAWL_CRAWL_URL_LEASE: how long a claimed URL (and its host slot) stays its node's (2m)
}

// UserAgent is the User-Agent crawls send.
func (c CrawlConfig) UserAgent() string { return crawl.UserAgent(c.OperatorURL) }

// DefaultCrawlConfig is the crawl configuration with no environment.
func DefaultCrawlConfig() CrawlConfig {
	return CrawlConfig{Concurrency: 8, PerHost: 2, Delay: 250 * time.Millisecond, MaxCrawlDelay: 10 * time.Second, URLLease: 2 * time.Minute}
}

// RunnerOptions are the crawl runner's settings.
func (c CrawlConfig) RunnerOptions() crawl.RunnerOptions {
	if c == (CrawlConfig{}) {
		c = DefaultCrawlConfig()
	}
	return crawl.RunnerOptions{Concurrency: int(c.Concurrency), PerHost: int(c.PerHost), Delay: c.Delay, MaxCrawlDelay: c.MaxCrawlDelay, IgnoreRobots: c.IgnoreRobots, URLLease: c.URLLease}
}

func (c Config) crawlFromEnv(getenv func(string) string) (Config, error) {
	if c.Crawl == (CrawlConfig{}) {
		c.Crawl = DefaultCrawlConfig()
	}
	for name, dst := range map[string]*int64{"TRAWL_CRAWL_CONCURRENCY": &c.Crawl.Concurrency, "TRAWL_CRAWL_PER_HOST": &c.Crawl.PerHost} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 || n > 1000 {
				return c, fmt.Errorf("%s must be an integer from 1 to 1000, got %q", name, v)
			}
			*dst = n
		}
	}
	if v := strings.TrimSpace(getenv("TRAWL_CRAWL_URL_LEASE")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return c, fmt.Errorf("TRAWL_CRAWL_URL_LEASE must be a duration of at least 1s, got %q", v)
		}
		c.Crawl.URLLease = d
	}
	for name, dst := range map[string]*time.Duration{"TRAWL_CRAWL_DELAY": &c.Crawl.Delay, "TRAWL_CRAWL_MAX_DELAY": &c.Crawl.MaxCrawlDelay} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return c, fmt.Errorf("%s must be a duration such as 250ms (0 allowed), got %q", name, v)
			}
			*dst = d
		}
	}
	if v := strings.TrimSpace(getenv("TRAWL_CRAWL_IGNORE_ROBOTS")); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("TRAWL_CRAWL_IGNORE_ROBOTS must be true or false, got %q", v)
		}
		c.Crawl.IgnoreRobots = b
	}
	if v := strings.TrimSpace(getenv("TRAWL_CRAWL_OPERATOR_URL")); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(v, " ();") {
			return c, fmt.Errorf("TRAWL_CRAWL_OPERATOR_URL must be an http or https URL (a page about the crawler), got %q", v)
		}
		c.Crawl.OperatorURL = v
	}
	return c, nil
}
