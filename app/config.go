// Package app is Trawl's composition root: configuration, one fx module per
// adapter, the server's lifecycle and the command line. It holds no rules.
package app

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/adapters/oteltrace"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/cache"
)

// Config is everything an operator can set, grouped by concern. Flags win
// over environment variables, which win over defaults; the environment
// variable of each field is beside it (docs/configuration.md).
type Config struct {
	HTTPConfig
	StoreConfig
	FetchConfig
	BrowserConfig
	DocumentConfig
	MailConfig
	PaymentsConfig
	FleetConfig
}

// HTTPConfig is the HTTP settings: where the server listens, what it
// answers, how it logs and stops.
type HTTPConfig struct {
	Addr      string        // TRAWL_ADDR, --addr
	PublicURL string        // TRAWL_PUBLIC_URL: base of links Trawl hands out
	MaxBody   int64         // TRAWL_MAX_BODY_BYTES
	Shutdown  time.Duration // TRAWL_SHUTDOWN_TIMEOUT
	LogLevel  string        // TRAWL_LOG_LEVEL: debug, info, warn, error
	LogFormat string        // TRAWL_LOG_FORMAT: text or json
}

// StoreConfig is the store settings: the database, the data directory and
// where result files go.
type StoreConfig struct {
	DataDir                 string        // TRAWL_DATA_DIR, --data-dir
	DatabaseURL             string        // TRAWL_DATABASE_URL, --database
	Bootstrap               bool          // TRAWL_BOOTSTRAP: create local@localhost on an empty store
	DatabaseMaxConns        int64         // TRAWL_DATABASE_MAX_CONNS; 0: the dialect's default
	DatabaseMaxIdleConns    int64         // TRAWL_DATABASE_MAX_IDLE_CONNS; 0: as many as DatabaseMaxConns
	DatabaseConnMaxLifetime time.Duration // TRAWL_DATABASE_CONN_MAX_LIFETIME; 0: the dialect's default
	DatabaseConnMaxIdleTime time.Duration // TRAWL_DATABASE_CONN_MAX_IDLE_TIME; 0: the dialect's default
	DatabaseQueryTimeout    time.Duration // TRAWL_DATABASE_QUERY_TIMEOUT: a statement, waiting for a connection included
	S3Endpoint              string        // TRAWL_S3_ENDPOINT; empty: files in the data dir, served at /files/
	S3Bucket                string        // TRAWL_S3_BUCKET
	S3AccessKey             string        // TRAWL_S3_ACCESS_KEY
	S3SecretKey             string        // TRAWL_S3_SECRET_KEY
	S3Region                string        // TRAWL_S3_REGION
	S3Insecure              bool          // TRAWL_S3_INSECURE: plain HTTP to the endpoint
	LinkTTL                 time.Duration // TRAWL_LINK_TTL: lifetime of download links
	LinkSecret              string        // TRAWL_LINK_SECRET: signs local links (share it between nodes)
	CacheMaxBytes           int64         // TRAWL_CACHE_MAX_BYTES: bound of the page cache, 0 turns it off (config_cache.go)
	ChangesRetention        time.Duration // TRAWL_CHANGES_RETENTION: how long change snapshots are kept (config_cache.go)
}

// FetchConfig is the fetch settings: how Trawl reaches the web, search
// engines and the model.
type FetchConfig struct {
	Resolve             []string      // TRAWL_FETCH_RESOLVE (comma-separated), --resolve (repeatable)
	FetchConnectTimeout time.Duration // TRAWL_FETCH_CONNECT_TIMEOUT
	FetchTimeout        time.Duration // TRAWL_FETCH_TIMEOUT
	FetchMaxBytes       int64         // TRAWL_FETCH_MAX_BYTES
	FetchProxy          string        // TRAWL_FETCH_PROXY
	FetchProxies        string        // TRAWL_FETCH_PROXIES: COUNTRY=URL, ...
	SearchGoogleURL     string        // TRAWL_SEARCH_GOOGLE_URL
	SearchBingURL       string        // TRAWL_SEARCH_BING_URL
	SearchDuckDuckGoURL string        // TRAWL_SEARCH_DUCKDUCKGO_URL
	SearchProxy         string        // TRAWL_SEARCH_PROXY
	SearchTimeout       time.Duration // TRAWL_SEARCH_TIMEOUT
	LLMBaseURL          string        // TRAWL_LLM_BASE_URL
	LLMAPIKey           string        // TRAWL_LLM_API_KEY
	LLMModel            string        // TRAWL_LLM_MODEL
	LLMTimeout          time.Duration // TRAWL_LLM_TIMEOUT (per attempt)
	LLMContextChars     int64         // TRAWL_LLM_CONTEXT_CHARS
}

// BrowserConfig is the browser settings: the Chromium that renders pages.
type BrowserConfig struct {
	BrowserPath         string // TRAWL_BROWSER_PATH: a local Chromium; default: chromium on PATH
	BrowserURL          string // TRAWL_BROWSER_URL: a remote DevTools endpoint instead of a local browser
	BrowserOff          bool   // TRAWL_BROWSER_OFF: never render, even with a browser installed
	BrowserPages        int64  // TRAWL_BROWSER_PAGES: pages rendering at once; default: the core count
	BrowserRestartAfter int64  // TRAWL_BROWSER_RESTART_AFTER: pages per browser process; default 200
	BrowserMemoryBytes  int64  // TRAWL_BROWSER_MEMORY_BYTES: the local browser's memory above idle; default 1 GiB
	BrowserPageMemory   int64  // TRAWL_BROWSER_PAGE_MEMORY_BYTES: memory of one page's renderer; default 512 MiB
	BrowserProxyListen  string // TRAWL_BROWSER_PROXY_LISTEN: where the browser's egress proxy listens; default 127.0.0.1:0
	SearchRender        string // TRAWL_SEARCH_RENDER: engines whose result pages are fetched in the browser (google)
}

// DocumentConfig is the documents settings: PDF and DOCX conversion.
type DocumentConfig struct {
	DocumentMaxBytes    int64         // TRAWL_DOCUMENT_MAX_BYTES: largest PDF or DOCX body
	DocumentMaxPages    int64         // TRAWL_DOCUMENT_MAX_PAGES: pages converted, the rest with a warning
	DocumentTimeout     time.Duration // TRAWL_DOCUMENT_TIMEOUT: conversion time after the fetch
	DocumentWorkers     int64         // TRAWL_DOCUMENT_WORKERS: PDFs converted at once
	DocumentMemoryBytes int64         // TRAWL_DOCUMENT_MEMORY_BYTES: memory of one PDF's reader
	DocumentWarmWorkers int64         // TRAWL_DOCUMENT_WARM_WORKERS: PDF workers kept loaded while idle (0: none)
}

// MailConfig is the mail settings: how results reach people and programs
// (mail, webhooks).
type MailConfig struct {
	SMTPURL        string        // TRAWL_SMTP_URL: smtp://user:pass@host:port; empty: .eml outbox in the data dir
	MailFrom       string        // TRAWL_MAIL_FROM
	WebhookTimeout time.Duration // TRAWL_WEBHOOK_TIMEOUT (per attempt)
	WebhookBackoff time.Duration // TRAWL_WEBHOOK_BACKOFF (first wait between attempts)
}

// PaymentsConfig is the payments settings: prices, plans and the payment
// provider.
type PaymentsConfig struct {
	PriceCents int64         // TRAWL_TOPUP_CENTS_PER_1000
	Currency   string        // TRAWL_TOPUP_CURRENCY
	PlansFile  string        // TRAWL_PLANS_FILE: the plan table (YAML or JSON); TRAWL_PLANS: the same inline
	Plans      billing.Plans // the plan table in force: the file's, else the spec's
	Stripe     StripeConfig  // TRAWL_STRIPE_*: Stripe as the payment provider; unset: the local checkout
}

// FleetConfig is the fleet settings: bulk work, crawls, shared limits and
// observability across nodes.
type FleetConfig struct {
	BulkWorker   bool               // TRAWL_BULK_WORKER: process bulk jobs in this process
	BulkJobs     int64              // TRAWL_BULK_JOBS: jobs processed at once
	BulkLease    time.Duration      // TRAWL_BULK_LEASE
	MonitorTick  time.Duration      // TRAWL_MONITOR_TICK: how often a node looks for due monitors
	Crawl        CrawlConfig        // TRAWL_CRAWL_*: politeness and robots.txt (config_crawl.go)
	RateLimiter  string             // TRAWL_RATE_LIMITER: auto (default), memory, postgres or redis
	RedisURL     string             // TRAWL_REDIS_URL: redis://host:port/db; the shared rate limiter
	RedisPrefix  string             // TRAWL_REDIS_PREFIX: before every key (default trawl:rl:)
	RedisTimeout time.Duration      // TRAWL_REDIS_TIMEOUT: one rate-limit decision, round trip included
	MetricsAddr  string             // TRAWL_METRICS_ADDR: Prometheus /metrics on host:port; empty: off
	Tracing      oteltrace.Settings // OTEL_*: traces over OTLP/HTTP; off unless an endpoint or exporter is set
}

// DefaultConfig is the configuration with no flags and no environment.
func DefaultConfig() Config {
	var c Config
	c.Addr = "127.0.0.1:8080"
	c.DataDir = "./trawl-data"
	c.LogLevel = "info"
	c.LogFormat = "text"
	c.MaxBody = 1 << 20
	c.Shutdown = 15 * time.Second
	c.PriceCents = 500
	c.Currency = "usd"
	c.Bootstrap = true
	c.FetchConnectTimeout = 10 * time.Second
	c.FetchTimeout = 30 * time.Second
	c.FetchMaxBytes = 10 << 20
	c.DocumentMaxBytes = 50 << 20
	c.DocumentMaxPages = 500
	c.DocumentTimeout = 30 * time.Second
	c.DocumentWorkers = 2
	c.DocumentMemoryBytes = 256 << 20
	c.SearchTimeout = 15 * time.Second
	c.LLMTimeout = 60 * time.Second
	c.LLMContextChars = 24000
	c.MailFrom = "Trawl <no-reply@trawl.localhost>"
	c.LinkTTL = 7 * 24 * time.Hour
	c.BulkWorker = true
	c.BulkJobs = 2
	c.BulkLease = time.Minute
	c.MonitorTick = 10 * time.Second
	c.WebhookTimeout = 30 * time.Second
	c.WebhookBackoff = 2 * time.Second
	c.S3Region = "us-east-1"
	c.DatabaseQueryTimeout = 10 * time.Second
	c.RateLimiter = LimiterAuto
	c.RedisTimeout = 250 * time.Millisecond
	c.Plans = billing.DefaultPlans()
	c.CacheMaxBytes = cache.DefaultMaxBytes
	return c
}

// FromEnv overlays TRAWL_* variables on c.
func (c Config) FromEnv(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	str := func(name string, dst *string) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	str("TRAWL_ADDR", &c.Addr)
	str("TRAWL_DATA_DIR", &c.DataDir)
	str("TRAWL_DATABASE_URL", &c.DatabaseURL)
	str("TRAWL_PUBLIC_URL", &c.PublicURL)
	str("TRAWL_LOG_LEVEL", &c.LogLevel)
	str("TRAWL_LOG_FORMAT", &c.LogFormat)
	str("TRAWL_TOPUP_CURRENCY", &c.Currency)
	str("TRAWL_FETCH_PROXY", &c.FetchProxy)
	str("TRAWL_FETCH_PROXIES", &c.FetchProxies)
	str("TRAWL_BROWSER_PATH", &c.BrowserPath)
	str("TRAWL_BROWSER_URL", &c.BrowserURL)
	str("TRAWL_BROWSER_PROXY_LISTEN", &c.BrowserProxyListen)
	str("TRAWL_SEARCH_RENDER", &c.SearchRender)
	str("TRAWL_SEARCH_GOOGLE_URL", &c.SearchGoogleURL)
	str("TRAWL_SEARCH_BING_URL", &c.SearchBingURL)
	str("TRAWL_SEARCH_DUCKDUCKGO_URL", &c.SearchDuckDuckGoURL)
	str("TRAWL_SEARCH_PROXY", &c.SearchProxy)
	str("TRAWL_LLM_BASE_URL", &c.LLMBaseURL)
	str("TRAWL_LLM_API_KEY", &c.LLMAPIKey)
	str("TRAWL_LLM_MODEL", &c.LLMModel)
	str("TRAWL_SMTP_URL", &c.SMTPURL)
	str("TRAWL_MAIL_FROM", &c.MailFrom)
	str("TRAWL_S3_ENDPOINT", &c.S3Endpoint)
	str("TRAWL_S3_BUCKET", &c.S3Bucket)
	str("TRAWL_S3_ACCESS_KEY", &c.S3AccessKey)
	str("TRAWL_S3_SECRET_KEY", &c.S3SecretKey)
	str("TRAWL_S3_REGION", &c.S3Region)
	str("TRAWL_LINK_SECRET", &c.LinkSecret)
	if v := getenv("TRAWL_FETCH_RESOLVE"); strings.TrimSpace(v) != "" {
		for _, part := range strings.Split(v, ",") {
			if p := strings.TrimSpace(part); p != "" {
				c.Resolve = append(c.Resolve, p)
			}
		}
	}
	for name, dst := range map[string]*int64{"TRAWL_MAX_BODY_BYTES": &c.MaxBody, "TRAWL_TOPUP_CENTS_PER_1000": &c.PriceCents, "TRAWL_FETCH_MAX_BYTES": &c.FetchMaxBytes, "TRAWL_LLM_CONTEXT_CHARS": &c.LLMContextChars, "TRAWL_BULK_JOBS": &c.BulkJobs,
		"TRAWL_DATABASE_MAX_CONNS": &c.DatabaseMaxConns, "TRAWL_BROWSER_PAGES": &c.BrowserPages, "TRAWL_BROWSER_RESTART_AFTER": &c.BrowserRestartAfter, "TRAWL_BROWSER_MEMORY_BYTES": &c.BrowserMemoryBytes, "TRAWL_BROWSER_PAGE_MEMORY_BYTES": &c.BrowserPageMemory, "TRAWL_DATABASE_MAX_IDLE_CONNS": &c.DatabaseMaxIdleConns,
		"TRAWL_DOCUMENT_MAX_BYTES": &c.DocumentMaxBytes, "TRAWL_DOCUMENT_MAX_PAGES": &c.DocumentMaxPages, "TRAWL_DOCUMENT_WORKERS": &c.DocumentWorkers, "TRAWL_DOCUMENT_MEMORY_BYTES": &c.DocumentMemoryBytes} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return c, fmt.Errorf("%s must be a positive integer, got %q", name, v)
			}
			*dst = n
		}
	}
	if v := strings.TrimSpace(getenv("TRAWL_DOCUMENT_WARM_WORKERS")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > c.DocumentWorkers {
			return c, fmt.Errorf("TRAWL_DOCUMENT_WARM_WORKERS must be an integer from 0 to TRAWL_DOCUMENT_WORKERS (%d), got %q", c.DocumentWorkers, v)
		}
		c.DocumentWarmWorkers = n
	}
	for name, dst := range map[string]*time.Duration{"TRAWL_SHUTDOWN_TIMEOUT": &c.Shutdown, "TRAWL_FETCH_TIMEOUT": &c.FetchTimeout, "TRAWL_FETCH_CONNECT_TIMEOUT": &c.FetchConnectTimeout, "TRAWL_SEARCH_TIMEOUT": &c.SearchTimeout, "TRAWL_LLM_TIMEOUT": &c.LLMTimeout,
		"TRAWL_LINK_TTL": &c.LinkTTL, "TRAWL_BULK_LEASE": &c.BulkLease, "TRAWL_MONITOR_TICK": &c.MonitorTick, "TRAWL_WEBHOOK_TIMEOUT": &c.WebhookTimeout, "TRAWL_WEBHOOK_BACKOFF": &c.WebhookBackoff,
		"TRAWL_DATABASE_CONN_MAX_LIFETIME": &c.DatabaseConnMaxLifetime, "TRAWL_DATABASE_CONN_MAX_IDLE_TIME": &c.DatabaseConnMaxIdleTime, "TRAWL_DATABASE_QUERY_TIMEOUT": &c.DatabaseQueryTimeout,
		"TRAWL_DOCUMENT_TIMEOUT": &c.DocumentTimeout} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("%s must be a duration such as 15s, got %q", name, v)
			}
			*dst = d
		}
	}
	for name, dst := range map[string]*bool{"TRAWL_BOOTSTRAP": &c.Bootstrap, "TRAWL_BULK_WORKER": &c.BulkWorker, "TRAWL_S3_INSECURE": &c.S3Insecure, "TRAWL_BROWSER_OFF": &c.BrowserOff} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("%s must be true or false, got %q", name, v)
			}
			*dst = b
		}
	}
	c.Stripe = StripeConfigFromEnv(getenv)
	c, err := c.plansFromEnv(getenv)
	if err != nil {
		return c, err
	}
	if c.Tracing, err = oteltrace.FromEnv(getenv); err != nil {
		return c, err
	}
	if c, err = c.crawlFromEnv(getenv); err != nil {
		return c, err
	}
	if c, err = c.cacheFromEnv(getenv); err != nil {
		return c, err
	}
	return c.fleetFromEnv(getenv)
}

// RendersSearch reports whether TRAWL_SEARCH_RENDER names engine.
func (c Config) RendersSearch(engine string) bool {
	for _, e := range strings.Split(c.SearchRender, ",") {
		if strings.EqualFold(strings.TrimSpace(e), engine) {
			return true
		}
	}
	return false
}

// Validate checks the configuration before anything starts.
func (c Config) Validate() error {
	for _, e := range strings.Split(c.SearchRender, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" && e != "google" {
			return fmt.Errorf("TRAWL_SEARCH_RENDER %q: only google is fetched through the browser", c.SearchRender)
		}
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("address %q: want host:port", c.Addr)
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("TRAWL_PUBLIC_URL %q must be an absolute http(s) URL, such as https://trawl.example.com", c.PublicURL)
		}
	}
	for _, r := range c.Resolve {
		if _, err := ParseResolve(r); err != nil {
			return err
		}
	}
	for name, p := range map[string]string{"TRAWL_FETCH_PROXY": c.FetchProxy, "TRAWL_SEARCH_PROXY": c.SearchProxy} {
		if p == "" {
			continue
		}
		if u, err := url.Parse(p); err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") || u.Host == "" {
			return fmt.Errorf("%s %q: want http://host:port, https://host:port or socks5://host:port", name, p)
		}
	}
	for name, b := range map[string]string{"TRAWL_SEARCH_GOOGLE_URL": c.SearchGoogleURL, "TRAWL_SEARCH_BING_URL": c.SearchBingURL,
		"TRAWL_SEARCH_DUCKDUCKGO_URL": c.SearchDuckDuckGoURL, "TRAWL_LLM_BASE_URL": c.LLMBaseURL} {
		if b == "" {
			continue
		}
		if u, err := url.Parse(b); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s %q: want an http(s) base URL", name, b)
		}
	}
	if c.SMTPURL != "" && !strings.HasPrefix(c.SMTPURL, "smtp://") {
		return fmt.Errorf("TRAWL_SMTP_URL %q: want smtp://user:pass@host:port", c.SMTPURL)
	}
	if c.S3Endpoint != "" && c.S3Bucket == "" {
		return fmt.Errorf("TRAWL_S3_BUCKET is required with TRAWL_S3_ENDPOINT")
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		return fmt.Errorf("log format %q: want text or json", c.LogFormat)
	}
	if err := c.validateFleet(); err != nil {
		return err
	}
	if err := c.Stripe.Validate(c.Plans); err != nil {
		return err
	}
	return c.validateDatabase()
}

// maxDatabaseConns bounds TRAWL_DATABASE_MAX_CONNS: far above what one
// process needs, low enough to catch a typo.
const maxDatabaseConns = 1000

// validateDatabase checks the database URL and the connection pool settings.
func (c Config) validateDatabase() error {
	if err := CheckDatabaseURL(c.DatabaseURL); err != nil {
		return err
	}
	if c.DatabaseMaxConns < 0 || c.DatabaseMaxConns > maxDatabaseConns {
		return fmt.Errorf("TRAWL_DATABASE_MAX_CONNS must be between 1 and %d, got %d", maxDatabaseConns, c.DatabaseMaxConns)
	}
	if c.DatabaseMaxIdleConns < 0 {
		return fmt.Errorf("TRAWL_DATABASE_MAX_IDLE_CONNS must be a positive integer, got %d", c.DatabaseMaxIdleConns)
	}
	pool := c.StoreOptions().Pool
	if pool.MaxConns == 0 {
		pool.MaxConns = sqlstore.DefaultPool(sqlstore.DialectOf(c.DatabaseURL)).MaxConns
	}
	if pool.MaxIdleConns > pool.MaxConns {
		return fmt.Errorf("TRAWL_DATABASE_MAX_IDLE_CONNS (%d) must not exceed TRAWL_DATABASE_MAX_CONNS (%d)", pool.MaxIdleConns, pool.MaxConns)
	}
	for name, d := range map[string]time.Duration{"TRAWL_DATABASE_CONN_MAX_LIFETIME": c.DatabaseConnMaxLifetime,
		"TRAWL_DATABASE_CONN_MAX_IDLE_TIME": c.DatabaseConnMaxIdleTime, "TRAWL_DATABASE_QUERY_TIMEOUT": c.DatabaseQueryTimeout} {
		if d < 0 {
			return fmt.Errorf("%s must be a positive duration such as 5m, got %s", name, d)
		}
	}
	return nil
}

// CheckDatabaseURL refuses a --database or TRAWL_DATABASE_URL that selects
// neither PostgreSQL nor SQLite. Its message never repeats the URL, which may
// hold a password.
func CheckDatabaseURL(databaseURL string) error {
	dsn := strings.TrimSpace(databaseURL)
	if dsn == "" {
		return nil
	}
	if sqlstore.DialectOf(dsn) == sqlstore.Postgres {
		if u, err := url.Parse(dsn); err != nil || u.Host == "" {
			return errors.New("the database URL is not a valid PostgreSQL URL: want postgres://user:password@host:5432/database")
		}
		return nil
	}
	if scheme, _, ok := strings.Cut(dsn, "://"); ok && scheme != "sqlite" {
		return fmt.Errorf("the database URL's scheme %q is not supported: use postgres:// for PostgreSQL, or sqlite:// or a file path for SQLite", scheme)
	}
	return nil
}

// StoreOptions are the database settings for sqlstore.Open.
func (c Config) StoreOptions() sqlstore.Options {
	return sqlstore.Options{
		DatabaseURL: c.DatabaseURL, DataDir: c.DataDir, QueryTimeout: c.DatabaseQueryTimeout,
		Pool: sqlstore.Pool{MaxConns: int(c.DatabaseMaxConns), MaxIdleConns: int(c.DatabaseMaxIdleConns),
			ConnMaxLifetime: c.DatabaseConnMaxLifetime, ConnMaxIdleTime: c.DatabaseConnMaxIdleTime},
	}
}

// PublicBase is the external base URL, defaulting to the listen address.
func (c Config) PublicBase() string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	host, port, _ := net.SplitHostPort(c.Addr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// ResolveEntry is one --resolve override: requests to Host:Port dial Addr,
// like curl's --resolve. It is how tests reach local fixture servers.
type ResolveEntry struct {
	Host string
	Port string
	Addr string // ip:port
}

// ParseResolve parses host:port=ip:port.
func ParseResolve(s string) (ResolveEntry, error) {
	left, right, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok {
		return ResolveEntry{}, fmt.Errorf("resolve %q: want host:port=ip:port", s)
	}
	host, port, err := net.SplitHostPort(left)
	if err != nil || host == "" {
		return ResolveEntry{}, fmt.Errorf("resolve %q: want host:port=ip:port", s)
	}
	ip, ipPort, err := net.SplitHostPort(right)
	if err != nil || net.ParseIP(ip) == nil {
		return ResolveEntry{}, fmt.Errorf("resolve %q: the target must be ip:port", s)
	}
	return ResolveEntry{Host: strings.ToLower(host), Port: port, Addr: net.JoinHostPort(ip, ipPort)}, nil
}

// ResolveMap turns the --resolve entries into the fetcher's override map.
func (c Config) ResolveMap() map[string]string {
	m := map[string]string{}
	for _, r := range c.Resolve {
		if e, err := ParseResolve(r); err == nil {
			m[net.JoinHostPort(e.Host, e.Port)] = e.Addr
		}
	}
	return m
}
