package fetch_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"github.com/trawlhq/trawl/adapters/fetch"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/sites"
)

func client(o fetch.Options, ss ...*sites.Site) *fetch.Client {
	if o.Resolve == nil {
		o.Resolve = sites.Resolve(ss...)
	}
	if o.LookupIP == nil {
		o.LookupIP = func(_ context.Context, host string) ([]netip.Addr, error) {
			switch host {
			case "metadata.test":
				return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
			case "mixed.test":
				return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.5")}, nil
			case "v6loop.test":
				return []netip.Addr{netip.MustParseAddr("::ffff:127.0.0.1")}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
	}
	return fetch.New(o)
}

// wantKind checks the failure the caller is shown: the fetcher's typed
// reason as core words it for the url field (or a field already named).
func wantKind(t *testing.T, err error, kind failure.Kind, msgHas string) {
	t.Helper()
	fe, ok := failure.As(weburl.Failure(err, "url"))
	if !ok || fe.Kind != kind || !strings.Contains(fe.Message, msgHas) {
		t.Fatalf("err = %v; want %s containing %q", err, kind, msgHas)
	}
}

func TestFetchPageAndHeaders(t *testing.T) {
	s := sites.New(t, "blog.test")
	var ua, accept, lang atomic.Value
	s.Mux.HandleFunc("/post", func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.Header.Get("User-Agent"))
		accept.Store(r.Header.Get("Accept"))
		lang.Store(r.Header.Get("Accept-Language"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(200)
		_, _ = w.Write([]byte("<html><body><p>héllo</p></body></html>"))
	})
	c := client(fetch.Options{}, s)
	res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/post"))})
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 200 || res.ContentType != "text/html" || !strings.Contains(string(res.Body), "héllo") || res.FinalURL != "http://blog.test/post" || res.Charset != "utf-8" {
		t.Fatalf("res = %+v", res)
	}
	if !strings.Contains(ua.Load().(string), "Chrome/") || !strings.Contains(accept.Load().(string), "text/html") || lang.Load().(string) == "" {
		t.Fatalf("headers: ua=%q accept=%q lang=%q", ua.Load(), accept.Load(), lang.Load())
	}
	// Keep-alive: a second fetch reuses the connection.
	if _, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/post"))}); err != nil {
		t.Fatal(err)
	}
	if n := s.Conns.Load(); n != 1 {
		t.Fatalf("%d connections for two fetches; keep-alive not reused", n)
	}
}

func TestNon2xxIsAResponse(t *testing.T) {
	s := sites.New(t, "blog.test")
	s.Mux.HandleFunc("/gone", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "gone", http.StatusGone) })
	res, err := client(fetch.Options{}, s).Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/gone"))})
	if err != nil || res.StatusCode != 410 {
		t.Fatalf("410 page: %+v %v", res, err)
	}
}

func TestDecoding(t *testing.T) {
	page := "<html><body><p>" + strings.Repeat("compressed text ", 200) + "</p></body></html>"
	s := sites.New(t, "zip.test")
	encode := map[string]func([]byte) []byte{
		"gzip": func(b []byte) []byte {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
		"br": func(b []byte) []byte {
			var buf bytes.Buffer
			zw := brotli.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
		"deflate": func(b []byte) []byte {
			var buf bytes.Buffer
			zw := zlib.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			return buf.Bytes()
		},
	}
	var gotAE atomic.Value
	for enc, fn := range encode {
		s.Mux.HandleFunc("/"+enc, func(w http.ResponseWriter, r *http.Request) {
			gotAE.Store(r.Header.Get("Accept-Encoding"))
			w.Header().Set("Content-Encoding", enc)
			w.Header().Set("Content-Type", "text/html")
			w.Write(fn([]byte(page)))
		})
	}
	c := client(fetch.Options{}, s)
	for enc := range encode {
		res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/" + enc))})
		if err != nil || string(res.Body) != page {
			t.Errorf("%s: %d bytes, %v", enc, len(res.Body), err)
		}
	}
	if ae := gotAE.Load().(string); !strings.Contains(ae, "br") || !strings.Contains(ae, "gzip") {
		t.Errorf("Accept-Encoding = %q", ae)
	}
}

func TestCharsets(t *testing.T) {
	s := sites.New(t, "old.test")
	latin1 := []byte("<html><head><meta charset=\"iso-8859-1\"></head><body><p>Caf\xe9 cr\xe8me</p></body></html>")
	s.Mux.HandleFunc("/meta", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(latin1)
	})
	s.Mux.HandleFunc("/header", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=windows-1251")
		w.Write([]byte("<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>"))
	})
	s.Mux.HandleFunc("/sjis", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=Shift_JIS")
		w.Write([]byte("<p>\x82\xb1\x82\xf1\x82\xc9\x82\xbf\x82\xcd</p>"))
	})
	c := client(fetch.Options{}, s)
	for path, want := range map[string]string{"/meta": "Café crème", "/header": "Привет", "/sjis": "こんにちは"} {
		res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL(path))})
		if err != nil || !strings.Contains(string(res.Body), want) {
			t.Errorf("%s: %q (%s), %v", path, res.Body, res.Charset, err)
		}
	}
}

func TestRedirects(t *testing.T) {
	s := sites.New(t, "hop.test")
	other := sites.New(t, "land.test")
	other.Handle("/final", "text/html", "<p>landed</p>")
	s.Mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	s.Mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://land.test/final", http.StatusMovedPermanently)
	})
	s.Mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	s.Mux.HandleFunc("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1/admin", http.StatusFound)
	})
	s.Mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://metadata.test/latest/meta-data/", http.StatusFound)
	})
	s.Mux.HandleFunc("/to-port", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://land.test:8080/x", http.StatusFound)
	})
	s.Mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://land.test/x", http.StatusFound)
	})
	c := client(fetch.Options{}, s, other)
	res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/a"))})
	if err != nil || res.FinalURL != "http://land.test/final" || res.Redirects != 2 || string(res.Body) != "<p>landed</p>" {
		t.Fatalf("redirect chain: %+v %v", res, err)
	}
	_, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/loop"))})
	wantKind(t, err, failure.Unavailable, "more than 10 redirects")
	_, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/to-loopback"))})
	wantKind(t, err, failure.Invalid, "non-public")
	_, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/to-metadata"))})
	err = weburl.Failure(err, "sitemap")
	wantKind(t, err, failure.Invalid, "non-public")
	if names := failure.FieldNames(err); len(names) != 1 || names[0] != "sitemap" {
		t.Fatalf("the error names %v, want the request's field", names)
	}
	_, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/to-port"))})
	wantKind(t, err, failure.Unavailable, "default port")
	_, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/to-ftp"))})
	wantKind(t, err, failure.Unavailable, "does not follow")
}

func TestPrivateTargets(t *testing.T) {
	c := client(fetch.Options{})
	for _, u := range []string{"http://metadata.test/latest/", "http://mixed.test/", "http://v6loop.test/", "http://localhost/", "http://127.0.0.1/", "http://[::1]/"} {
		_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(u)})
		if !failure.Is(weburl.Failure(err, "url"), failure.Invalid) {
			t.Errorf("%s: %v, want 422", u, err)
		}
	}
	_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL("http://nowhere.test/")})
	wantKind(t, err, failure.Unavailable, "nowhere.test was not found")
}

// TestDialTimeGuard: a name that resolves to a public address when checked
// and to loopback when dialled (DNS rebinding) is refused at dial time.
func TestDialTimeGuard(t *testing.T) {
	target := sites.New(t, "inner.test")
	target.Handle("/", "text/html", "secret")
	_, port, _ := net.SplitHostPort(target.Addr())
	var calls atomic.Int32
	c := fetch.New(fetch.Options{LookupIP: func(context.Context, string) ([]netip.Addr, error) {
		if calls.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}})
	_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL("http://rebind.test/")})
	if !failure.Is(weburl.Failure(err, "url"), failure.Invalid) {
		t.Fatalf("rebinding: %v, want 422", err)
	}
	if target.Hits.Load() != 0 {
		t.Fatalf("the loopback server was reached (port %s)", port)
	}
}

func TestLimits(t *testing.T) {
	s := sites.New(t, "big.test")
	s.Mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(bytes.Repeat([]byte("x"), 2<<20))
	})
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte("a"), 50<<20))
	zw.Close()
	s.Mux.HandleFunc("/bomb", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb.Bytes())
	})
	s.Mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	c := client(fetch.Options{MaxBytes: 1 << 20}, s)
	_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/huge"))})
	wantKind(t, err, failure.Unavailable, "larger than")
	_, err = c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/bomb"))})
	wantKind(t, err, failure.Unavailable, "larger than")
	start := time.Now()
	_, err = client(fetch.Options{Timeout: 300 * time.Millisecond}, s).Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/slow"))})
	wantKind(t, err, failure.Unavailable, "did not answer")
	if time.Since(start) > 2*time.Second {
		t.Fatal("the total timeout was not applied")
	}
	if res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/huge")), MaxBytes: 4 << 20}); err != nil || len(res.Body) != 2<<20 {
		t.Fatalf("a per-request cap above the default: %d bytes, %v", len(res.Body), err)
	}
}

func TestProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		if r.URL.Host != "far.test" {
			http.Error(w, "bad target "+r.URL.Host, 400)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<p>via proxy</p>"))
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	c := fetch.New(fetch.Options{Proxy: pu})
	res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL("http://far.test/page")})
	if err != nil || string(res.Body) != "<p>via proxy</p>" || proxied.Load() != 1 {
		t.Fatalf("proxy: %+v %v (%d proxied)", res, err, proxied.Load())
	}
}

// The encoding is found in the WHATWG order (BOM, Content-Type, a <meta>
// in the first 1,024 bytes); with nothing said, a valid UTF-8 body is
// UTF-8 and any other windows-1252.
func TestCharsetSniffingOrder(t *testing.T) {
	late, err := os.ReadFile("testdata/charset/utf8-meta-after-1024-bytes.html")
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := os.ReadFile("testdata/charset/windows-1252-undeclared.html")
	if err != nil {
		t.Fatal(err)
	}
	s := sites.New(t, "pages.test")
	serve := func(path, contentType string, body []byte) {
		s.Mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.Write(body)
		})
	}
	serve("/late-meta", "text/html", late)
	serve("/legacy", "text/html", legacy)
	serve("/bom-wins", "text/html; charset=iso-8859-1", append([]byte("\xef\xbb\xbf"), late...))
	serve("/header-wins", "text/html; charset=windows-1252", late)
	serve("/meta-wins", "text/html", []byte("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"><title>x</title></head><body><p>na\xefve</p></body></html>"))
	serve("/utf16-meta", "text/html", []byte("<html><head><meta charset=\"utf-16\"></head><body><p>cr\xc3\xa8me</p></body></html>"))
	c := client(fetch.Options{}, s)
	for path, want := range map[string]struct{ charset, text string }{
		"/late-meta":   {"utf-8", "Coût total : environ 4 € pour six ramequins. Bon appétit ! 🍮"},
		"/legacy":      {"windows-1252", "Unser „Frühstück“ gibt es täglich von 8 bis 11 Uhr – auch sonntags."},
		"/bom-wins":    {"utf-8", "Crème brûlée — la recette"},
		"/header-wins": {"windows-1252", "CrÃ¨me brÃ»lÃ©e"}, // the server's word outranks the late <meta>
		"/meta-wins":   {"windows-1252", "naïve"},
		"/utf16-meta":  {"utf-8", "crème"},
	} {
		res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL(path))})
		if err != nil || res.Charset != want.charset || !strings.Contains(string(res.Body), want.text) {
			t.Errorf("%s: charset %q, want %q; body has %q: %v\n%.300s", path, res.Charset, want.charset, want.text, err, res.Body)
		}
	}
	res, _ := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL("/legacy"))})
	if !strings.Contains(string(res.Body), "Kaffee 2,50 € • Kuchen 3,20 € • Grüße aus Wien!") || !strings.Contains(string(res.Body), "<title>Café Mozart – Menü</title>") {
		t.Errorf("windows-1252 page: %s", res.Body)
	}
}

// TestTypedReasons: every failure is a typed reason, so callers (sitemap
// discovery, bulk) tell reasons apart without reading messages, and core
// words it naming the request's field.
func TestTypedReasons(t *testing.T) {
	s := sites.New(t, "hop.test")
	s.Mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	s.Mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://land.test/x", http.StatusFound)
	})
	closed := httptest.NewServer(http.NotFoundHandler())
	closedAddr := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()
	c := client(fetch.Options{Resolve: map[string]string{"hop.test:80": s.Addr(), "shut.test:80": closedAddr}})
	for _, tc := range []struct {
		url, field string
		reason     ports.FetchReason
		msgHas     string
	}{
		{s.URL("/loop"), "url", ports.FetchTooManyRedirects, "more than 10 redirects"},
		{s.URL("/to-ftp"), "sitemap", ports.FetchBadRedirect, "(sitemap must use http or https)"},
		{"http://nowhere.test/", "url", ports.FetchHostNotFound, "nowhere.test was not found"},
		{"http://shut.test/", "url", ports.FetchRefused, "shut.test refused the connection"},
	} {
		_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(tc.url)})
		wantKind(t, weburl.Failure(err, tc.field), failure.Unavailable, tc.msgHas)
		var fe *ports.FetchError
		if !errors.As(err, &fe) || fe.Reason != tc.reason {
			t.Errorf("%s: reason %+v, want %d", tc.url, fe, tc.reason)
		}
	}
}

// parseURL is a fetch target as a caller hands it over, parsed once.
func parseURL(raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	return u
}

// TestBodyAtTheCap: a body of exactly the cap is read whole and one byte
// more is refused, whether its length is announced, unannounced (chunked)
// or hidden by compression (in one gzip member or two).
func TestBodyAtTheCap(t *testing.T) {
	const max = 300_000
	s := sites.New(t, "cap.test")
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcdefghijklmnopqrstuvwxyz <p>"[(i*7+i/13)%30]
		}
		return b
	}
	s.Mux.HandleFunc("/{how}/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		b := body(n)
		w.Header().Set("Content-Type", "text/html")
		switch r.PathValue("how") {
		case "announced":
			w.Header().Set("Content-Length", strconv.Itoa(n))
			w.Write(b)
		case "chunked":
			for len(b) > 0 {
				k := min(len(b), 10_000)
				w.Write(b[:k])
				w.(http.Flusher).Flush()
				b = b[k:]
			}
		case "gzip", "gzip2":
			// gzip2 is two members, whose trailer states the second's size only.
			parts := [][]byte{b}
			if r.PathValue("how") == "gzip2" {
				parts = [][]byte{b[:len(b)-len(b)/10], b[len(b)-len(b)/10:]}
			}
			var buf bytes.Buffer
			for _, p := range parts {
				zw := gzip.NewWriter(&buf)
				zw.Write(p)
				zw.Close()
			}
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
			w.Write(buf.Bytes())
		}
	})
	c := client(fetch.Options{MaxBytes: max}, s)
	for _, how := range []string{"announced", "chunked", "gzip", "gzip2"} {
		for _, n := range []int{0, 1, 40_000, max} {
			res, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL(fmt.Sprintf("/%s/%d", how, n)))})
			if err != nil || !bytes.Equal(res.Body, body(n)) {
				t.Errorf("%s body of %d bytes: got %d, %v", how, n, len(res.Body), err)
			}
		}
		_, err := c.Fetch(context.Background(), ports.FetchRequest{URL: parseURL(s.URL(fmt.Sprintf("/%s/%d", how, max+1)))})
		wantKind(t, err, failure.Unavailable, "larger than")
	}
}
