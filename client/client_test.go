package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/client"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

func TestAgainstTheAPI(t *testing.T) {
	site := sites.New(t, "news.test")
	site.Handle("/a", "text/html", `<html><head><title>A</title></head><body><article><p>Tide pools warm quickly in summer, and the animals in them survive by hiding in shade and depth until the tide returns.</p></article></body></html>`)
	e := apitest.Start(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(site)})
	_, tok := e.Account("go@example.com", "pro")
	c := client.New(e.Server.URL, tok, client.WithBackoff(time.Millisecond))
	ctx := context.Background()
	u, err := c.User(ctx)
	if err != nil || u.Email != "go@example.com" {
		t.Fatalf("User = %+v %v", u, err)
	}
	page, err := c.Content(ctx, "http://news.test/a")
	if err != nil || !page.Success || !strings.Contains(page.Markdown, "Tide pools") || page.Metadata.Title != "A" {
		t.Fatalf("Content = %+v %v", page, err)
	}
	cr, err := c.Credits(ctx)
	if err != nil || cr.Balance != 19998 || cr.Status.Limit != 20000 {
		t.Fatalf("Credits = %+v %v", cr, err)
	}
	ok, p, err := c.CanAfford(ctx, "prompt", 3)
	if err != nil || !ok || p.TotalCost != 30 {
		t.Fatalf("CanAfford = %v %+v %v", ok, p, err)
	}
	tx, err := c.Transactions(ctx, 1, 10)
	if err != nil || tx.Total != 1 || tx.Data[0].ServiceType != "content" {
		t.Fatalf("Transactions = %+v %v", tx, err)
	}
	_, err = c.Content(ctx, "http://127.0.0.1/")
	var apiErr *client.Error
	if !client.IsStatus(err, 422) || !asError(err, &apiErr) || len(apiErr.Errors["url"]) == 0 {
		t.Fatalf("422 = %v", err)
	}
	if _, err := c.Scrape(ctx, "http://news.test/missing-host-page"); err != nil && !client.IsStatus(err, 503) {
		t.Fatalf("scrape: %v", err)
	}
	bad := client.New(e.Server.URL, "trawl_"+strings.Repeat("z", 40))
	if _, err := bad.User(ctx); !client.IsStatus(err, 401) {
		t.Fatalf("401 = %v", err)
	}
}

func asError(err error, target **client.Error) bool {
	e, ok := err.(*client.Error)
	if ok {
		*target = e
	}
	return ok
}

// scripted answers statuses in order, then 200 with {"id":1}.
type scripted struct {
	mu       sync.Mutex
	statuses []int
	keys     []string
	hits     int
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits++
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	var st int
	if len(s.statuses) > 0 {
		st, s.statuses = s.statuses[0], s.statuses[1:]
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch st {
	case 0:
		w.Write([]byte(`{"url":"x","success":true,"statusCode":200,"errorMessage":null,"html":"","markdown":"ok","metadata":{}}`))
	case 429:
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(429)
		w.Write([]byte(`{"message":"Too Many Requests"}`))
	case 402:
		w.WriteHeader(402)
		w.Write([]byte(`{"message":"Insufficient Credits","required":2,"balance":1}`))
	default:
		w.WriteHeader(st)
		w.Write([]byte(`{"message":"down"}`))
	}
}

func TestRetryPolicy(t *testing.T) {
	for _, c := range []struct {
		name     string
		statuses []int
		wantErr  int
		hits     int
	}{
		{"503 then success", []int{503, 502, 500}, 0, 4},
		{"429 honours Retry-After", []int{429, 429}, 0, 3},
		{"gives up after 5 attempts", []int{503, 503, 503, 503, 503, 503}, 503, 5},
		{"never retries 402", []int{402}, 402, 1},
		{"never retries 422", []int{422}, 422, 1},
		{"never retries 401", []int{401}, 401, 1},
		{"never retries 404", []int{404}, 404, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &scripted{statuses: c.statuses}
			srv := httptest.NewServer(s)
			defer srv.Close()
			cl := client.New(srv.URL, "trawl_x", client.WithBackoff(time.Millisecond))
			page, err := cl.Content(context.Background(), "https://example.com/")
			switch {
			case c.wantErr == 0 && (err != nil || page.Markdown != "ok"):
				t.Fatalf("err = %v", err)
			case c.wantErr != 0 && !client.IsStatus(err, c.wantErr):
				t.Fatalf("err = %v, want %d", err, c.wantErr)
			}
			if s.hits != c.hits {
				t.Fatalf("%d attempts, want %d", s.hits, c.hits)
			}
			for _, k := range s.keys {
				if k == "" || k != s.keys[0] {
					t.Fatalf("idempotency keys %v: every attempt must carry the same key", s.keys)
				}
			}
		})
	}
	s := &scripted{statuses: []int{402}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, err := client.New(srv.URL, "t").Content(context.Background(), "https://example.com/")
	var e *client.Error
	if !asError(err, &e) || e.Required != 2 || e.Balance != 1 || e.Message != "Insufficient Credits" {
		t.Fatalf("402 decoded as %+v", e)
	}
	// Free calls carry no key.
	free := &scripted{}
	fsrv := httptest.NewServer(free)
	defer fsrv.Close()
	_, _ = client.New(fsrv.URL, "t").Credits(context.Background())
	if free.keys[0] != "" {
		t.Fatal("a free call carried an Idempotency-Key")
	}
}

func TestContextEndsRetries(t *testing.T) {
	s := &scripted{statuses: []int{503, 503, 503, 503, 503}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := client.New(srv.URL, "t", client.WithBackoff(time.Second)).Content(ctx, "https://example.com/")
	if err == nil || time.Since(start) > time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

// TestUnavailableReason: a 503 says why and whether to retry; the client
// keeps the code and does not retry what waiting cannot fix.
func TestUnavailableReason(t *testing.T) {
	for _, c := range []struct {
		body      string
		retryable bool
		hits      int
	}{
		{`{"message":"A captcha.","reason":"captcha","retryable":false}`, false, 1},
		{`{"message":"Too slow.","reason":"timeout","retryable":true}`, true, 3},
	} {
		hits := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			hits++
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(503)
			_, _ = w.Write([]byte(c.body))
		}))
		_, err := client.New(srv.URL, "t", client.WithBackoff(time.Millisecond), client.WithAttempts(3)).Content(context.Background(), "https://example.com/")
		srv.Close()
		var e *client.Error
		if !asError(err, &e) || e.Status != 503 || e.Retryable != c.retryable || e.Reason == "" || hits != c.hits {
			t.Errorf("%s: err %+v after %d attempts", c.body, e, hits)
		}
	}
}
