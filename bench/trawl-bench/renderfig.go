package main

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/trawlhq/trawl/adapters/sqlstore"
	"github.com/trawlhq/trawl/app"
)

// renderDir finds the built front-end fixtures (make fixtures) from the
// module root or below it.
func renderDir() string {
	dir, _ := os.Getwd()
	for range 4 {
		p := filepath.Join(dir, "testdata", "render", "dist")
		if _, err := os.Stat(filepath.Join(p, "article.html")); err == nil {
			return p
		}
		dir = filepath.Dir(dir)
	}
	log.Fatal("testdata/render/dist not found: run from the repository")
	return ""
}

// renderFigure measures static and rendered reads of the front-end
// fixtures through the whole API in process, with the local Chromium:
// latency by mode, pages extracted, then rendered pages a minute and
// memory beside a bare chromedp program (renderAgainstFloor), at the
// renderer's default concurrency, the core count.
func renderFigure(pairs, n int) {
	browser := app.FindBrowser(app.DefaultConfig())
	if browser == "" {
		fmt.Printf("\n%-40s skipped: no Chromium on PATH (Debian: apt-get install chromium)\n", "Rendered pages")
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	// docs counts the fixture documents served: each render loads one.
	var docs atomic.Int64
	files := http.FileServer(http.Dir(renderDir()))
	site := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".html") {
			docs.Add(1)
		}
		files.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = site.Serve(ln) }()
	defer site.Close()
	dir, err := os.MkdirTemp("", "trawl-bench-render")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store, err := sqlstore.Open(context.Background(), sqlstore.Options{DataDir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	b, err := buildWith(store, "spa.test", ln.Addr().String(), false)
	if err != nil {
		log.Fatal(err)
	}
	get := func(path string) int {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+b.token)
		b.handler.ServeHTTP(rec, req)
		return rec.Code
	}
	pages := renderPages
	for _, mode := range []string{"never", "always"} {
		var d []time.Duration
		for i := range 40 {
			start := time.Now()
			get("/v1/scrape?render=" + mode + "&url=http://spa.test/" + pages[i%len(pages)])
			d = append(d, time.Since(start))
		}
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		fmt.Printf("render %-6s median %s p95 %s\n", mode, d[len(d)/2].Round(time.Millisecond), d[len(d)*95/100].Round(time.Millisecond))
	}
	extracted := map[string]int{}
	for _, mode := range []string{"never", "always"} {
		for _, p := range []string{"article.html", "xhr.html", "hash.html", "consent.html", "never.html", "hog.html"} {
			if get("/v1/content?render="+mode+"&url=http://spa.test/"+p) == 200 {
				extracted[mode]++
			}
		}
	}
	fmt.Printf("fixture pages extracted of 6: http %d, browser %d\n", extracted["never"], extracted["always"])

	renderAgainstFloor(get, ln.Addr().String(), &docs, pairs, n, runtime.NumCPU())
}

// treeMem is the memory of a process tree: the sum of its processes'
// resident memory (VmRSS: a page shared by several processes is counted in
// each) and of their proportional set sizes (Pss: a shared page is split
// among the processes sharing it).
type treeMem struct{ rss, pss int64 }

// treeMemory reads the memory of pid and its descendants, less skip and
// its descendants (0: none left out); their PSS only when pss is set, as
// the kernel walks each process's mappings for it (a read of a browser's
// tree costs tens of milliseconds of CPU). It walks the tree through each
// thread's children list, so a read costs a few files a process of the
// tree rather than one for every process of the machine.
func treeMemory(pid, skip int, pss bool) treeMem {
	var m treeMem
	seen := map[int]bool{}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if seen[p] || p == skip {
			continue
		}
		seen[p] = true
		if pss {
			r := procMemory(p)
			m.rss, m.pss = m.rss+r.rss, m.pss+r.pss
		} else if b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/statm"); err == nil {
			if f := strings.Fields(string(b)); len(f) > 1 {
				pages, _ := strconv.ParseInt(f[1], 10, 64)
				m.rss += pages * int64(os.Getpagesize())
			}
		}
		dir := "/proc/" + strconv.Itoa(p) + "/task/"
		tasks, _ := os.ReadDir(dir)
		for _, t := range tasks {
			b, _ := os.ReadFile(dir + t.Name() + "/children")
			for _, c := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(c); err == nil {
					queue = append(queue, n)
				}
			}
		}
	}
	return m
}

// procMemory reads one process's memory from /proc/<pid>/smaps_rollup.
func procMemory(pid int) treeMem {
	var m treeMem
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return m
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "Rss:":
			m.rss += kb << 10
		case "Pss:":
			m.pss += kb << 10
		}
	}
	return m
}
