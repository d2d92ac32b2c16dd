package e2e

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/pgtest"
	"github.com/trawlhq/trawl/testkit/sites"
	"github.com/trawlhq/trawl/testkit/smtptest"
)

// articleSite serves n article pages at /blog/2026/post-<i> (every third at
// /news/<i>/ to vary the tree), each taking delay to answer.
func articleSite(t *testing.T, host string, n int, delay time.Duration) (*sites.Site, []string, *atomic.Int64) {
	s := sites.New(t, host)
	var served atomic.Int64
	var urls []string
	for i := range n {
		path := fmt.Sprintf("/blog/2026/post-%d", i)
		if i%3 == 0 {
			path = fmt.Sprintf("/news/%d/", i)
		}
		urls = append(urls, "http://"+host+path)
		page := fmt.Sprintf(`<html><head><title>Post %d</title></head><body><nav><a href="/">Home</a></nav><article><h1>Post %d</h1>
<p>Story number %d begins here. Tides rise and fall twice a day, and the pools they leave behind are full of life, from anemones to crabs.</p>
<p>Researchers measured the temperature of %d pools over a summer and found that shade and depth decide which animals survive the heat.</p>
</article><footer>© Fixture</footer></body></html>`, i, i, i, i+10)
		s.Mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			}
			served.Add(1)
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(page))
		})
	}
	return s, urls, &served
}

type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	fail   int
	bodies [][]byte
	events []string
}

func newHook(t *testing.T, fail int) *hookReceiver {
	h := &hookReceiver{fail: fail}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, b)
		h.events = append(h.events, r.Header.Get("X-Trawl-Webhook"))
		failing := h.fail > 0
		if failing {
			h.fail--
		}
		h.mu.Unlock()
		if failing {
			w.WriteHeader(500)
			return
		}
		w.WriteHeader(200)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) resolve() (string, string) {
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(h.srv.URL, "http://"))
	return "hooks.test:" + port + "=" + strings.TrimPrefix(h.srv.URL, "http://"), "http://hooks.test:" + port + "/trawl"
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.bodies)
}

func postJSON(t *testing.T, url, token string, body any) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(res.Body).Decode(&m)
	return res.StatusCode, m
}

func waitStatus(t *testing.T, base, token, id string, until func(map[string]any) bool, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if code, m := get(t, base+"/v1/content/bulk/"+id, token); code == 200 && until(m) {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, m := get(t, base+"/v1/content/bulk/"+id, token)
	t.Fatalf("job %s: condition not reached in %s: %v", id, limit, m)
	return nil
}

// TestBinaryBulkJob: 30 URLs through the real binary, delivered by a
// webhook that fails twice then succeeds, and by email over a real SMTP
// conversation whose link downloads the ZIP.
func TestBinaryBulkJob(t *testing.T) {
	site, urls, _ := articleSite(t, "articles.test", 30, 0)
	hook := newHook(t, 2)
	hookResolve, hookURL := hook.resolve()
	mailSrv := smtptest.Start(t)
	t.Setenv("TRAWL_SMTP_URL", mailSrv.URL())
	t.Setenv("TRAWL_WEBHOOK_BACKOFF", "20ms")
	s := start(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0], "--resolve", hookResolve})
	token := tokenRE.FindString(s.stdout.String())
	code, ack := postJSON(t, s.base+"/v1/content/bulk", token, map[string]any{"urls": urls, "email": true, "callback_url": hookURL})
	if code != 202 || ack["urls_count"] != float64(30) || ack["delivery_method"] != "email,webhook" {
		t.Fatalf("ack = %d %v", code, ack)
	}
	id := ack["job_id"].(string)
	job := waitStatus(t, s.base, token, id, func(m map[string]any) bool { return m["status"] == "completed" || m["status"] == "failed" }, 60*time.Second)
	if job["status"] != "completed" || job["success_count"] != float64(30) {
		t.Fatalf("job = %v", job)
	}
	if hook.count() != 3 {
		t.Fatalf("%d webhook attempts, want 3 (two failures, then success)", hook.count())
	}
	msgs := mailSrv.Messages()
	if len(msgs) != 1 || msgs[0].To[0] != "local@localhost" {
		t.Fatalf("smtp got %d messages", len(msgs))
	}
	body := strings.ReplaceAll(strings.ReplaceAll(string(msgs[0].Data), "=\r\n", ""), "=3D", "=")
	link := regexp.MustCompile(`http://[^\s"<]+/files/[^\s"<]+`).FindString(body)
	if link == "" || !strings.HasPrefix(link, s.base+"/files/") {
		t.Fatalf("no download link in the email:\n%s", body)
	}
	res, err := http.Get(link)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("download: %v %v", res, err)
	}
	zipped, _ := io.ReadAll(res.Body)
	res.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	for _, want := range []string{"html/articles.test/blog/2026/post-1.html", "markdown/articles.test/blog/2026/post-1.md", "html/articles.test/news/0/index.html", "markdown/articles.test/news/27/index.md", "manifest.json"} {
		if !names[want] {
			t.Errorf("zip lacks %s", want)
		}
	}
	if len(names) != 61 {
		t.Errorf("zip has %d files, want 60 and the manifest", len(names))
	}
	_, cr := get(t, s.base+"/v1/credits", token)
	if cr["balance"] != float64(90000-60) {
		t.Fatalf("balance %v, want 60 charged", cr["balance"])
	}
	s.stop(t)
}

// TestBinaryBulkResume: a worker killed mid-job leaves its lease to run
// out; a second process on the same Postgres resumes the job, and no URL is
// charged twice.
func TestBinaryBulkResume(t *testing.T) {
	db := pgtest.NewDatabase(t)
	site, urls, served := articleSite(t, "slow.test", 20, 250*time.Millisecond)
	hook := newHook(t, 0)
	hookResolve, hookURL := hook.resolve()
	t.Setenv("TRAWL_BULK_LEASE", "2s")
	args := []string{"--database", db, "--resolve", sites.ResolveFlags(site)[0], "--resolve", hookResolve}
	a := start(t, append([]string{"--data-dir", t.TempDir()}, args...))
	token := tokenRE.FindString(a.stdout.String())
	code, ack := postJSON(t, a.base+"/v1/content/bulk", token, map[string]any{"urls": urls, "callback_url": hookURL})
	if code != 202 {
		t.Fatalf("ack = %d %v", code, ack)
	}
	id := ack["job_id"].(string)
	waitStatus(t, a.base, token, id, func(m map[string]any) bool { return m["processed_count"].(float64) >= 4 }, 30*time.Second)
	_ = a.cmd.Process.Signal(syscall.SIGKILL) // no graceful stop: the lease is left behind
	<-a.done
	a.done <- nil
	part := served.Load()
	b := start(t, append([]string{"--data-dir", t.TempDir()}, args...))
	job := waitStatus(t, b.base, token, id, func(m map[string]any) bool { return m["status"] == "completed" }, 60*time.Second)
	if job["success_count"] != float64(20) || job["failed_count"] != float64(0) {
		t.Fatalf("resumed job = %v", job)
	}
	_, tx := get(t, b.base+"/v1/credits/transactions?per_page=100", token)
	if tx["total"] != float64(20) {
		t.Fatalf("%v transactions for 20 URLs: a URL was charged twice or not at all", tx["total"])
	}
	_, cr := get(t, b.base+"/v1/credits", token)
	if cr["balance"] != float64(90000-40) {
		t.Fatalf("balance %v", cr["balance"])
	}
	if hook.count() != 1 {
		t.Fatalf("%d completion webhooks", hook.count())
	}
	t.Logf("process A served %d page fetches before it was killed; the job finished in process B (%d fetches in all)", part, served.Load())
	b.stop(t)
}

// TestBinaryBulkDrain: SIGTERM mid-job lets the pages being read finish
// and be recorded, and hands the lease back; a second process resumes the
// job at once (the lease is far from running out) and no page is fetched
// or charged twice.
func TestBinaryBulkDrain(t *testing.T) {
	db := pgtest.NewDatabase(t)
	site, urls, _ := articleSite(t, "drain.test", 20, 300*time.Millisecond)
	hook := newHook(t, 0)
	hookResolve, hookURL := hook.resolve()
	t.Setenv("TRAWL_BULK_LEASE", "10m")
	args := []string{"--database", db, "--resolve", sites.ResolveFlags(site)[0], "--resolve", hookResolve}
	a := start(t, append([]string{"--data-dir", t.TempDir()}, args...))
	token := tokenRE.FindString(a.stdout.String())
	code, ack := postJSON(t, a.base+"/v1/content/bulk", token, map[string]any{"urls": urls, "callback_url": hookURL})
	if code != 202 {
		t.Fatalf("ack = %d %v", code, ack)
	}
	id := ack["job_id"].(string)
	waitStatus(t, a.base, token, id, func(m map[string]any) bool { return m["processed_count"].(float64) >= 4 }, 30*time.Second)
	termAt := time.Now()
	a.stop(t)
	if !strings.Contains(a.stderr.String(), "handed back") {
		t.Fatalf("the job was not handed back:\n%s", a.stderr)
	}
	fetchedByA := site.Hits.Load()
	b := start(t, append([]string{"--data-dir", t.TempDir()}, args...))
	_, mid := get(t, b.base+"/v1/content/bulk/"+id, token)
	if mid["processed_count"] != float64(fetchedByA) {
		t.Fatalf("process A fetched %d pages but %v were recorded: a page in flight was dropped", fetchedByA, mid["processed_count"])
	}
	job := waitStatus(t, b.base, token, id, func(m map[string]any) bool { return m["status"] == "completed" }, 60*time.Second)
	t.Logf("A read %d pages, drained and exited; B completed the job %s after SIGTERM (lease 10m)", fetchedByA, time.Since(termAt).Round(10*time.Millisecond))
	if job["success_count"] != float64(20) || site.Hits.Load() != 20 {
		t.Fatalf("job = %v after %d page fetches; want 20 URLs read once each", job, site.Hits.Load())
	}
	_, tx := get(t, b.base+"/v1/credits/transactions?per_page=100", token)
	if tx["total"] != float64(20) {
		t.Fatalf("%v transactions for 20 URLs", tx["total"])
	}
	b.stop(t)
}
