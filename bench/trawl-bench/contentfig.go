package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/adapters/extract"
	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/bench/extractbench"
	"github.com/trawlhq/trawl/ports"
)

// The /v1/content figure: the server's CPU time per page of the article
// split, served from a local site, beside the bare extractor's on the same
// pages. The server runs in a child process of its own, so its CPU time
// (getrusage of that process) holds nothing of the load generator or of the
// site serving the pages; the floor runs in the same child, between the
// server's passes, on the pages as the extractor receives them.

const contentChildEnv = "TRAWL_BENCH_CONTENT_CHILD"

// contentRounds is how many times each run reads every page. Runs are
// kept short and their pairs many (contentPairs at least): the machine's
// other work weighs on both runs of a pair alike.
const contentRounds = 1

// contentPairs is the fewest alternated pairs the figure is the median of.
const contentPairs = 9

// articleDir finds the article split from the module root or below it.
func articleDir() string {
	dir, _ := os.Getwd()
	for range 4 {
		p := filepath.Join(dir, "testdata", "extraction", "dev")
		if _, err := os.Stat(filepath.Join(p, "ground-truth.json")); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	log.Fatal("testdata/extraction/dev not found: run from the repository")
	return ""
}

// contentFigure serves the 91 pages, as they are and gzip-coded (as most
// sites send them: the server then decodes them, which the floor does not),
// starts the server child, and alternates a run of /v1/content over every
// page with a run of the bare extractor, pairs times, for each.
func contentFigure(pairs, conc int, cpuProfile string, encodings []string, verbose bool) {
	pairs = max(pairs, contentPairs)
	dir := articleDir()
	pages, err := extractbench.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	bodies := make(map[string][]byte, 2*len(pages))
	for _, p := range pages {
		b, err := os.ReadFile(filepath.Join(dir, "html", p.ID+".html.gz"))
		if err != nil {
			log.Fatal(err)
		}
		bodies["/gzip/"+p.ID], bodies["/identity/"+p.ID] = b, p.HTML
	}
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if strings.HasPrefix(r.URL.Path, "/gzip/") {
			w.Header().Set("Content-Encoding", "gzip")
		}
		_, _ = w.Write(b)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	child := exec.Command(exe)
	child.Env = append(os.Environ(), contentChildEnv+"="+ln.Addr().String(), "TRAWL_BENCH_DIR="+dir, "TRAWL_BENCH_CPUPROFILE="+cpuProfile, fmt.Sprintf("TRAWL_BENCH_CONC=%d", conc))
	child.Stderr = os.Stderr
	in, _ := child.StdinPipe()
	outPipe, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		log.Fatal(err)
	}
	out := bufio.NewScanner(outPipe)
	ask := func(cmd string) []string {
		if _, err := fmt.Fprintln(in, cmd); err != nil {
			log.Fatal(err)
		}
		if !out.Scan() {
			log.Fatalf("content server: no answer to %q", cmd)
		}
		return strings.Fields(out.Text())
	}
	hello := ask("hello")
	addr, token, bareAddr := hello[0], hello[1], hello[2]

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}, Timeout: time.Minute}
	fmt.Printf("\n%-40s %10s %10s %6s\n", fmt.Sprintf("GET /v1/content, %d article pages, CPU", len(pages)), "Trawl", "floor", "ratio")
	for _, enc := range encodings {
		var trawl, floor, ratios, bare, bareRatios []float64
		var failed int64
		var server, extractor, bareC [][]float64 // counters per page, each pair
		for range pairs {
			before := ask("cpu")
			failed = 0
			for range contentRounds {
				failed += serverPass(client, addr, token, enc, pages, conc)
			}
			after := ask("cpu")
			n := float64(contentRounds * len(pages))
			t := float64(atoi(after[0])-atoi(before[0])) / n
			fl := ask("floor " + enc)
			f := float64(atoi(fl[0])) / n
			sc, bc := make([]float64, len(counterNames)), make([]float64, len(counterNames))
			for i := range counterNames {
				sc[i], bc[i] = float64(atoi(after[1+i])-atoi(before[1+i]))/n, float64(atoi(fl[1+i]))/n
			}
			server, extractor = append(server, sc), append(extractor, bc)
			trawl, floor, ratios = append(trawl, t), append(floor, f), append(ratios, t/f)
			before = ask("cpu")
			bareServerPass(client, bareAddr, enc, pages, conc)
			after = ask("cpu")
			b := float64(atoi(after[0])-atoi(before[0])) / n
			rc := make([]float64, len(counterNames))
			for i := range counterNames {
				rc[i] = float64(atoi(after[1+i])-atoi(before[1+i])) / n
			}
			bareC = append(bareC, rc)
			bare, bareRatios = append(bare, b), append(bareRatios, b/f)
		}
		med := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
		fmt.Printf("%-40s %10s %10s %6.2f   server per page vs the bare extractor, %d clients, %d pages not extracted\n", "  pages sent "+enc,
			time.Duration(med(trawl)).Round(10*time.Microsecond), time.Duration(med(floor)).Round(10*time.Microsecond), med(ratios), conc, failed/contentRounds)
		fmt.Printf("%-40s %10s %10s %6.2f   for reference: a bare net/http server that fetches, extracts and answers in JSON\n", "    bare net/http server",
			time.Duration(med(bare)).Round(10*time.Microsecond), time.Duration(med(floor)).Round(10*time.Microsecond), med(bareRatios))
		if verbose {
			for i, name := range counterNames {
				col := func(v [][]float64) float64 {
					c := make([]float64, len(v))
					for j := range v {
						c[j] = v[j][i]
					}
					return med(c)
				}
				fmt.Printf("    %-34s server %10.1f   bare server %10.1f   extractor %10.1f\n", name+" per page", col(server), col(bareC), col(extractor))
			}
			for i := range trawl {
				fmt.Printf("    pair %d: %v / %v = %.3f\n", i+1, time.Duration(trawl[i]).Round(10*time.Microsecond), time.Duration(floor[i]).Round(10*time.Microsecond), ratios[i])
			}
		}
	}
	_, _ = fmt.Fprintln(in, "quit")
	_ = in.Close()
	_ = child.Wait()
}

func atoi(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }

// bareServerPass asks the bare net/http server for every page, conc at a
// time.
func bareServerPass(client *http.Client, addr, enc string, pages []extractbench.Page, conc int) {
	eachPage(len(pages), conc, func(i int) {
		res, err := client.Get("http://" + addr + "/?url=" + url.QueryEscape("http://articles.test/"+enc+"/"+pages[i].ID))
		if err != nil {
			log.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	})
}

// bareServer is the reference beside the figure: what net/http costs a
// server that does the page's work and nothing else (no authentication,
// no credits, no checks), with a plain http.Client whose connections to
// the site are kept, and encoding/json.
func bareServer(ex *extract.Extractor, siteAddr string) *http.Server {
	client := &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 16,
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, siteAddr)
		},
	}}
	return &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u := r.URL.Query().Get("url")
		res, err := client.Get(u)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out, err := ex.Extract(r.Context(), ports.ExtractRequest{URL: u, HTML: body})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b, _ := json.Marshal(out)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})}
}

// serverPass asks /v1/content for every page, conc at a time, and returns
// how many were not 200.
func serverPass(client *http.Client, addr, token, enc string, pages []extractbench.Page, conc int) int64 {
	var failed atomic.Int64
	eachPage(len(pages), conc, func(i int) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/content?url="+url.QueryEscape("http://articles.test/"+enc+"/"+pages[i].ID), nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := client.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			failed.Add(1)
		}
	})
	return failed.Load()
}

// eachPage runs fn for each of n pages, conc at a time, each page once.
func eachPage(n, conc int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// counterNames are what the verbose figure shows beside CPU time, per page
// of the server's passes and of the extractor's: where a difference in CPU
// comes from (system time, memory, goroutine hand-offs, collections).
var counterNames = []string{"system CPU µs", "page faults", "context switches", "KB allocated", "objects allocated", "goroutines started", "GC cycles"}

// counters reads counterNames' values now.
func counters() []int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	ms := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}, {Name: "/sched/goroutines-created:goroutines"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(ms)
	v := func(i int) int64 {
		if ms[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(ms[i].Value.Uint64())
	}
	return []int64{ru.Stime.Nano() / 1e3, ru.Minflt, ru.Nvcsw + ru.Nivcsw, v(0) >> 10, v(1), v(2), v(3)}
}

// line writes the CPU time and counters as one line of the child's answers.
func line(cpu time.Duration, c []int64) {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(int64(cpu), 10))
	for _, v := range c {
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(v, 10))
	}
	fmt.Println(b.String())
}

// cpuNow is the process's user and system CPU time.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// contentChild is the server process: the real API on SQLite, articles.test
// resolved to the parent's site, answering the parent's commands on stdin.
func contentChild(siteAddr string) {
	dir := os.Getenv("TRAWL_BENCH_DIR")
	conc, _ := strconv.Atoi(os.Getenv("TRAWL_BENCH_CONC"))
	pages, err := extractbench.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	data, _ := os.MkdirTemp("", "trawl-bench-content")
	defer os.RemoveAll(data)
	s, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: data})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	b, err := buildWith(s, "articles.test", siteAddr, true)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: b.handler, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if p := os.Getenv("TRAWL_BENCH_CPUPROFILE"); p != "" {
		stop := startProfile(p)
		defer stop()
	}
	ex := extract.New()
	bln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	bsrv := bareServer(ex, siteAddr)
	go func() { _ = bsrv.Serve(bln) }()
	defer bsrv.Close()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "hello":
			fmt.Println(ln.Addr().String(), b.token, bln.Addr().String())
		case "cpu": // after a collection, so a pass pays for its own garbage
			runtime.GC()
			line(cpuNow(), counters())
		case "floor identity", "floor gzip":
			enc := strings.TrimPrefix(in.Text(), "floor ")
			runtime.GC()
			start, c0 := cpuNow(), counters()
			for range contentRounds {
				floorPass(ex, enc, pages, conc)
			}
			runtime.GC()
			c1 := counters()
			for i := range c1 {
				c1[i] -= c0[i]
			}
			line(cpuNow()-start, c1)
		case "quit":
			return
		}
	}
}

// floorPass extracts every page with the bare extractor, conc at a time,
// under the URL the server's fetch ends at.
func floorPass(ex *extract.Extractor, enc string, pages []extractbench.Page, conc int) {
	eachPage(len(pages), conc, func(i int) {
		_, _ = ex.Extract(context.Background(), ports.ExtractRequest{URL: "http://articles.test/" + enc + "/" + pages[i].ID, HTML: pages[i].HTML})
	})
}

// startProfile writes a CPU profile to path until the returned func runs.
func startProfile(path string) func() {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
