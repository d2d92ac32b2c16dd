package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/testkit/proctest"
)

// footprintCalls is how many /v1/content calls the node serves between
// its idle figure and the one after.
const footprintCalls = 1000

// footprintFigure starts the real binary with the default configuration
// (a fresh data directory, SQLite, the PDF reader, the browser when one is
// installed) and reports its resident memory at rest, after 1,000
// /v1/content calls over the article pages, beside a hello-world net/http
// server's; then the first PDF after a start against a warm one: with an
// empty data directory (PDFium compiles) and after a restart (the compiled
// reader is loaded from the data directory).
func footprintFigure() {
	fmt.Printf("\nFootprint: the trawl binary, default configuration (per-minute limits lifted, document time limit 10m for a loaded machine), resident memory of its process tree from /proc\n")
	work, bin := buildTrawl("trawl-bench-footprint")
	defer os.RemoveAll(work)
	site := footprintSite()
	defer site.Close()

	hello, helloRSS := helloFloor(work)
	defer hello()

	data := filepath.Join(work, "data")
	n := startNode(bin, data, site.addr, "")
	idle := settledRSS(n.pid())
	idlePSS := treePSS(n.pid())
	pages := articlePages()
	took := n.contentCalls(pages, footprintCalls, 4)
	after := settledRSS(n.pid())
	fmt.Printf("%-52s %8.1f MB   (hello-world net/http: %.1f MB; %.1fx; PSS %.1f MB; goal <= 80 MB)\n", "idle", mb(idle), mb(helloRSS), float64(idle)/float64(helloRSS), mb(idlePSS))
	fmt.Printf("%-52s %8.1f MB   (%+.1f MB over idle, in %v)\n", fmt.Sprintf("after %d /v1/content calls", footprintCalls), mb(after), mb(after-idle), took.Round(time.Millisecond))

	cold := n.pdfTime("report.pdf", 1)
	warm := n.pdfTime("report.pdf", 5)
	n.stop()
	fmt.Printf("%-52s %8.0f ms   (%.1fx a warm one, %.0f ms)\n", "first PDF, empty data directory (compiles PDFium)", ms(cold), float64(cold)/float64(warm), ms(warm))
	// After a restart the compiled reader is loaded from the data
	// directory: a fixed cost, set against a short and a long document.
	for _, doc := range []struct{ name, what string }{{"report.pdf", "4 pages"}, {"large.pdf", "300 pages"}} {
		n = startNode(bin, data, site.addr, n.token)
		rest := settledRSS(n.pid())
		first := n.pdfTime(doc.name, 1)
		warm := n.pdfTime(doc.name, 3)
		held := settledRSS(n.pid())
		heldPSS := treePSS(n.pid())
		node := statusKB(n.pid(), "VmRSS") << 10
		var later int64
		if doc.name == "report.pdf" {
			// A PDF worker exits after a minute without documents.
			time.Sleep(65 * time.Second)
			later = settledRSS(n.pid())
		}
		n.stop()
		fmt.Printf("%-52s %8.0f ms   (%.2fx a warm one, %.0f ms; goal <= 2x)\n", fmt.Sprintf("first PDF after a restart, %s (%s)", doc.name, doc.what), ms(first), float64(first)/float64(warm), ms(warm))
		fmt.Printf("%-52s %8.1f MB   (the node %.1f MB, its PDF worker %.1f MB; PSS summed %.1f MB, the binary's shared pages once; %.1f MB at rest before it)\n", "  resident afterwards, PDFium loaded", mb(held), mb(node), mb(held-node), mb(heldPSS), mb(rest))
		if later > 0 {
			fmt.Printf("%-52s %8.1f MB\n", "  resident a minute later (an idle worker exits)", mb(later))
		}
	}
	// The other choice: one worker kept loaded (TRAWL_DOCUMENT_WARM_WORKERS=1),
	// started with the server. The first PDF does not wait for a worker to
	// load PDFium; the node at rest holds that worker.
	n = startNode(bin, data, site.addr, n.token, "TRAWL_DOCUMENT_WARM_WORKERS=1")
	rest := settledRSS(n.pid())
	restPSS := treePSS(n.pid())
	node := statusKB(n.pid(), "VmRSS") << 10
	workers := len(proctest.Children(n.pid()))
	first := n.pdfTime("report.pdf", 1)
	warm = n.pdfTime("report.pdf", 3)
	n.stop()
	if workers != 1 {
		log.Fatalf("footprint: %d processes below the node at rest with one PDF worker kept loaded, want 1", workers)
	}
	fmt.Printf("%-52s %8.1f MB   (the node %.1f MB, its loaded PDF worker %.1f MB; PSS summed %.1f MB)\n", "idle, one PDF worker kept loaded (WARM_WORKERS=1)", mb(rest), mb(node), mb(rest-node), mb(restPSS))
	fmt.Printf("%-52s %8.0f ms   (%.2fx a warm one, %.0f ms; goal <= 2x)\n", "  first PDF after a restart, report.pdf", ms(first), float64(first)/float64(warm), ms(warm))
}

func mb(b int64) float64         { return float64(b) / 1e6 }
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type fixtureSite struct {
	addr string
	srv  *http.Server
}

func (s fixtureSite) Close() { s.srv.Close() }

// footprintSite serves the article pages at /a/<i> and the document corpus
// at /doc/<name>.
func footprintSite() fixtureSite {
	pages := articlePages()
	docs := filepath.Join(filepath.Dir(filepath.Dir(articleDir())), "documents")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /a/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 || i >= len(pages) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(pages[i].HTML)
	})
	mux.HandleFunc("GET /doc/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		http.ServeFile(w, r, filepath.Join(docs, filepath.Base(r.PathValue("name"))))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return fixtureSite{addr: ln.Addr().String(), srv: srv}
}

func articlePages() []extractbench.Page {
	pages, err := extractbench.Load(articleDir())
	if err != nil {
		log.Fatal(err)
	}
	return pages
}

type node struct {
	cmd   *exec.Cmd
	base  string
	token string
}

func (n *node) pid() int { return n.cmd.Process.Pid }

// startNode runs `trawl serve` on a free port with the given data
// directory and settings (env), reading the token the first start prints.
func startNode(bin, data, siteAddr, token string, env ...string) *node {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data-dir", data,
		"--resolve", "articles.test:80="+siteAddr, "--resolve", "docs.test:80="+siteAddr)
	cmd.Env = append(os.Environ(), "TRAWL_DOCUMENT_TIMEOUT=10m", `TRAWL_PLANS={"plans":[{"name":"basic"},{"name":"pro"},{"name":"business","per_minute":{"content":1000000}}]}`)
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	n := &node{cmd: cmd, base: "http://" + addr, token: token}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if t, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "T="); ok {
				found <- t
			}
		}
	}()
	if token == "" {
		select {
		case n.token = <-found:
		case <-time.After(2 * time.Minute):
			log.Fatal("the node printed no token")
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		resp, err := http.Get(n.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return n
			}
		}
		if time.Now().After(deadline) {
			log.Fatalf("the node did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (n *node) stop() {
	_ = n.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = n.cmd.Process.Kill()
		<-done
	}
}

func (n *node) content(target string) (time.Duration, error) {
	req, _ := http.NewRequest("GET", n.base+"/v1/content?url="+url.QueryEscape(target), nil)
	req.Header.Set("Authorization", "Bearer "+n.token)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != 200 {
		return took, fmt.Errorf("%s: %d %s", target, resp.StatusCode, body)
	}
	return took, nil
}

// contentCalls makes calls /v1/content calls over the pages, conc at once;
// a page the extractor cannot read is a failure like another, counted.
func (n *node) contentCalls(pages []extractbench.Page, calls, conc int) time.Duration {
	start := time.Now()
	var mu sync.Mutex
	failed := 0
	var wg sync.WaitGroup
	next := make(chan int)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, err := n.content(fmt.Sprintf("http://articles.test/a/%d", i%len(pages))); err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			}
		}()
	}
	for i := range calls {
		next <- i
	}
	close(next)
	wg.Wait()
	if failed > calls/10 {
		log.Fatalf("%d of %d /v1/content calls failed", failed, calls)
	}
	return time.Since(start)
}

// pdfTime is the median time of runs /v1/content calls on a corpus PDF.
// A call that fails (the first, when compiling PDFium outlasts the time
// limit on a loaded machine) is made again, its time added.
func (n *node) pdfTime(name string, runs int) time.Duration {
	var ts []time.Duration
	for i := range runs {
		var total time.Duration
		for attempt := 0; ; attempt++ {
			took, err := n.content(fmt.Sprintf("http://docs.test/doc/%s?%d-%d", name, time.Now().UnixNano(), i))
			total += took
			if err == nil {
				break
			}
			if attempt == 3 {
				log.Fatal(err)
			}
		}
		ts = append(ts, total)
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

// settledRSS waits until the resident memory of the process and its
// children stops moving (less than 1 MB over 3 s, at most 30 s) and
// returns it.
func settledRSS(pid int) int64 {
	last, stable := treeRSS(pid), 0
	for range 60 {
		time.Sleep(500 * time.Millisecond)
		now := treeRSS(pid)
		if d := now - last; d < 1e6 && d > -1e6 {
			stable++
			if stable >= 6 {
				return now
			}
		} else {
			stable = 0
		}
		last = now
	}
	return last
}

// treeRSS is VmRSS of pid and every process below it (the PDF workers).
// The binary's own pages, which a worker maps as its node does, are
// counted in each: treePSS counts them once.
func treeRSS(pid int) int64 {
	return treeSum(pid, func(pid int) int64 { return statusKB(pid, "VmRSS") << 10 })
}

// treePSS is the proportional set size of pid and every process below it:
// a page shared by n processes counts 1/n in each, so the tree's pages
// shared among themselves (the binary's, mapped by the node and its
// workers) count once.
func treePSS(pid int) int64 {
	return treeSum(pid, func(pid int) int64 { return rollupKB(pid, "Pss") << 10 })
}

// treeSum adds size over pid and every process below it.
func treeSum(pid int, size func(int) int64) int64 {
	total := size(pid)
	for _, c := range proctest.Children(pid) {
		total += treeSum(c, size)
	}
	return total
}

func statusKB(pid int, field string) int64 {
	return procKB(fmt.Sprintf("/proc/%d/status", pid), field)
}

func rollupKB(pid int, field string) int64 {
	return procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), field)
}

// procKB reads a "Field:   123 kB" line of a /proc file.
func procKB(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}

// helloSource is the floor: a hello-world net/http server, its own
// program, so that it links nothing else.
const helloSource = `package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
)

func main() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println(ln.Addr().String())
	panic(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") })))
}
`

// helloFloor builds and starts the hello-world server, serves it 1,000
// requests, and returns its resident memory at rest.
func helloFloor(work string) (stop func(), rss int64) {
	src, bin := filepath.Join(work, "hello.go"), filepath.Join(work, "hello")
	if err := os.WriteFile(src, []byte(helloSource), 0o644); err != nil {
		log.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, src)
	build.Dir = work
	if out, err := build.CombinedOutput(); err != nil {
		log.Fatalf("go build hello: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + strings.TrimSpace(addr)
	for range 1000 {
		if resp, err := http.Get(base + "/"); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	rss = settledRSS(cmd.Process.Pid)
	return func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }, rss
}
