package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// renderFloorEnv starts the binary as the render floor: a bare chromedp
// program rendering the fixtures served at the address it names.
const renderFloorEnv = "TRAWL_BENCH_RENDER_FLOOR"

// renderPages are the fixture pages both sides render in turn: each draws
// its text on the client (after an XHR, a hash route or under an overlay).
var renderPages = []string{"article.html", "xhr.html", "hash.html", "consent.html"}

// renderSide is one side's figures over a run.
type renderSide struct {
	perMinute float64
	peak      treeMem // the side's processes at their largest during the run
	failed    int64
	goCPU     time.Duration // the side's Go process's CPU time per page rendered
	harness   time.Duration // this process's CPU time per page rendered (the floor's side: the figure's own memory reads)
}

// renderAgainstFloor renders the fixtures n times through Trawl (render
// calls to the API, as get makes them) and n times through the floor
// program, alternated pairs times, conc at once on each side, and prints
// the pages a minute of each, their ratio and the resident memory of each
// side per concurrent render. docs counts the fixture documents the site
// served, so a render answered without the page being loaded shows.
func renderAgainstFloor(get func(string) int, siteAddr string, docs *atomic.Int64, pairs, n, conc int) {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	self := os.Getpid()
	browser, flags := trawlBrowser(self)
	if browser == "" {
		log.Fatal("render figure: Trawl's browser is not running")
	}
	child := exec.Command(exe)
	child.Env = append(os.Environ(), renderFloorEnv+"="+siteAddr, "TRAWL_BENCH_BROWSER="+browser, "TRAWL_BENCH_BROWSER_FLAGS="+strings.Join(flags, "\n"), fmt.Sprintf("TRAWL_BENCH_CONC=%d", conc))
	child.Stderr = os.Stderr
	in, _ := child.StdinPipe()
	outPipe, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() { in.Close(); _ = child.Wait() }()
	out := bufio.NewScanner(outPipe)
	ask := func(cmd string) []string {
		if _, err := fmt.Fprintln(in, cmd); err != nil {
			log.Fatal(err)
		}
		if !out.Scan() {
			log.Fatalf("render floor: no answer to %q", cmd)
		}
		return strings.Fields(out.Text())
	}
	floorPid := child.Process.Pid

	trawlRun := func(count int) (ok, failed int64, took time.Duration) {
		return inParallel(count, conc, func(i int) bool {
			return get("/v1/scrape?render=always&url=http://spa.test/"+renderPages[i%len(renderPages)]) == 200
		})
	}
	floorRun := func(count int) (ok, failed int64, took time.Duration) {
		f := ask(fmt.Sprintf("run %d", count))
		if len(f) != 3 {
			log.Fatalf("render floor: answer %q", f)
		}
		ok, _ = strconv.ParseInt(f[0], 10, 64)
		failed, _ = strconv.ParseInt(f[1], 10, 64)
		ms, _ := strconv.ParseInt(f[2], 10, 64)
		return ok, failed, time.Duration(ms) * time.Millisecond
	}
	// The memory of a side is read every 100 ms while it renders (its PSS
	// every second): Trawl's is this process and its browser (the floor's
	// process tree, at rest meanwhile, left out), the floor's is its
	// process and its browser.
	measure := func(run func(int) (int64, int64, time.Duration), mem func(pss bool) treeMem, goPid int) renderSide {
		stop := make(chan struct{})
		peak := make(chan treeMem)
		go func() {
			var top treeMem
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for i := 0; ; i++ {
				m := mem(i%10 == 0)
				top = treeMem{rss: max(top.rss, m.rss), pss: max(top.pss, m.pss)}
				select {
				case <-stop:
					peak <- top
					return
				case <-t.C:
				}
			}
		}()
		before, cpu, own := docs.Load(), processCPU(goPid), processCPU(self)
		ok, failed, took := run(n)
		close(stop)
		if served := docs.Load() - before; served < ok {
			log.Fatalf("render figure: %d pages rendered but the site served %d documents", ok, served)
		}
		cpu, own = processCPU(goPid)-cpu, processCPU(self)-own
		pages := time.Duration(max(ok, 1))
		return renderSide{perMinute: float64(ok) / took.Minutes(), peak: <-peak, failed: failed, goCPU: cpu / pages, harness: own / pages}
	}
	trawlMem := func(pss bool) treeMem { return treeMemory(self, floorPid, pss) }
	floorMem := func(pss bool) treeMem { return treeMemory(floorPid, 0, pss) }

	if f := ask("ready"); len(f) != 1 || f[0] != "ready" {
		log.Fatalf("render floor: answer %q", f)
	}
	// Both browsers started and their first pages done before the runs.
	trawlRun(2 * conc)
	floorRun(2 * conc)

	fmt.Printf("\nRendered pages beside a bare chromedp program (the same Chromium, %d at once, images, media and fonts blocked, the same rule for a page being done), %d pages a run, %d alternated pairs\n", conc, n, pairs)
	fmt.Printf("the floor starts %s with Trawl's browser's %d flags, less its proxy's, its profile's and its debugging channel's\n", browser, len(flags))
	fmt.Printf("at rest after the first pages: Trawl %s (its Go process %s), floor %s (its Go process %s)\n", mib(trawlMem(true)), mib(procMemory(self)), mib(floorMem(true)), mib(procMemory(floorPid)))
	fmt.Printf("%-6s %11s %11s %6s   %-24s %-24s %s\n", "pair", "Trawl p/min", "floor p/min", "ratio", "Trawl MiB per render", "floor MiB per render", "Go CPU a page: Trawl/floor (sampling)")
	var trawl, floor []renderSide
	var ratios []float64
	perRender := func(m treeMem) string {
		return fmt.Sprintf("%4.0f RSS %4.0f PSS", float64(m.rss)/float64(conc)/(1<<20), float64(m.pss)/float64(conc)/(1<<20))
	}
	for i := range pairs {
		t := measure(trawlRun, trawlMem, self)
		f := measure(floorRun, floorMem, floorPid)
		trawl, floor = append(trawl, t), append(floor, f)
		ratio := t.perMinute / f.perMinute
		ratios = append(ratios, ratio)
		errs := ""
		if t.failed+f.failed > 0 {
			errs = fmt.Sprintf("  failed: Trawl %d, floor %d", t.failed, f.failed)
		}
		fmt.Printf("%-6d %11.1f %11.1f %6.2f   %-24s %-24s %s / %s (%s)%s\n", i+1, t.perMinute, f.perMinute, ratio, perRender(t.peak), perRender(f.peak),
			t.goCPU.Round(time.Millisecond), f.goCPU.Round(time.Millisecond), f.harness.Round(time.Millisecond), errs)
	}
	mid := func(sides []renderSide, key func(renderSide) int64) int64 {
		v := make([]int64, len(sides))
		for i, s := range sides {
			v[i] = key(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	midMem := func(sides []renderSide) treeMem {
		return treeMem{rss: mid(sides, func(s renderSide) int64 { return s.peak.rss }), pss: mid(sides, func(s renderSide) int64 { return s.peak.pss })}
	}
	rate := func(sides []renderSide) float64 {
		return float64(mid(sides, func(s renderSide) int64 { return int64(s.perMinute * 1000) })) / 1000
	}
	slices.Sort(ratios)
	fmt.Printf("%-6s %11.1f %11.1f %6.2f   %-24s %-24s  (goal: a ratio of at least 0.80)\n", "median", rate(trawl), rate(floor), ratios[len(ratios)/2], perRender(midMem(trawl)), perRender(midMem(floor)))
	fmt.Printf("Go CPU a page: the CPU time of Trawl's process (API, renderer, egress proxy, and this figure's memory reads) and of the floor's over a run, over the pages rendered; (sampling): this process's during the floor's run, the memory reads and Trawl at rest\n")
	fmt.Printf("memory per render: the peak of each side's processes (Go and Chromium's) during a run (RSS read every 100 ms, PSS every second) over the %d pages rendering at once; RSS counts a page shared by processes in each, PSS splits it among them\n", conc)
}

// trawlBrowser finds the browser Trawl's renderer started, a child of this
// process, and reads its program and flags, less those a launch sets anew
// (the profile directory, the debugging channel) and those that send its
// traffic to Trawl's egress proxy: the floor has no proxy and reaches the
// site directly.
func trawlBrowser(self int) (exe string, flags []string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		st := string(b)
		f := strings.Fields(st[strings.LastIndexByte(st, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(self) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
		if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--remote-debugging-") }) {
			continue
		}
		exe, _ = os.Readlink("/proc/" + e.Name() + "/exe")
		for _, a := range args[1:] {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			switch {
			case !strings.HasPrefix(a, "--"):
			case strings.HasPrefix(name, "remote-debugging-"), name == "user-data-dir",
				name == "proxy-server", name == "proxy-bypass-list", name == "host-resolver-rules":
			default:
				flags = append(flags, a)
			}
		}
		return exe, flags
	}
	return "", nil
}

// processCPU is the user and system CPU time pid has used.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // clock ticks (USER_HZ) of 1/100 s
}

func mib(m treeMem) string {
	return fmt.Sprintf("%d MiB RSS, %d MiB PSS", m.rss>>20, m.pss>>20)
}

// renderFloorChild is the floor program: one Chromium started by chromedp
// with the program and flags of Trawl's (trawlBrowser), each page in a fresh
// incognito context as Trawl's, images, media and fonts failed through the
// Fetch domain, done by Trawl's rule, and its HTML read. It answers the
// parent's "run N" with the pages rendered, failed and the milliseconds.
func renderFloorChild(siteAddr string) {
	conc, _ := strconv.Atoi(os.Getenv("TRAWL_BENCH_CONC"))
	dir, err := os.MkdirTemp("", "trawl-bench-floor-chromium")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(os.Getenv("TRAWL_BENCH_BROWSER")), chromedp.UserDataDir(dir)}
	for _, arg := range strings.Split(os.Getenv("TRAWL_BENCH_BROWSER_FLAGS"), "\n") {
		if name, value, ok := strings.Cut(strings.TrimPrefix(arg, "--"), "="); ok {
			opts = append(opts, chromedp.Flag(name, value))
		} else if name != "" {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	root, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The browser starts without a tab of its own, as Trawl's does.
	if _, err := chromedp.CallBrowser(root, browser.GetVersion, cdp.Empty{}); err != nil {
		log.Fatal(err)
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) == 1 && f[0] == "ready":
			fmt.Println("ready")
		case len(f) == 2 && f[0] == "run":
			n, _ := strconv.Atoi(f[1])
			ok, failed, took := inParallel(n, conc, func(i int) bool {
				err := floorRender(root, "http://"+siteAddr+"/"+renderPages[i%len(renderPages)])
				if err != nil {
					log.Printf("render floor: %v", err)
				}
				return err == nil
			})
			fmt.Println(ok, failed, took.Milliseconds())
		default:
			log.Fatalf("render floor: command %q", in.Text())
		}
	}
}

// inParallel runs one(0..n-1) from conc goroutines and counts the calls
// that succeeded and failed.
func inParallel(n, conc int, one func(i int) bool) (ok, failed int64, took time.Duration) {
	work := make(chan int)
	var wg sync.WaitGroup
	var okN, failN atomic.Int64
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if one(i) {
					okN.Add(1)
				} else {
					failN.Add(1)
				}
			}
		}()
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return okN.Load(), failN.Load(), time.Since(start)
}

// floorRender opens pageURL in a new tab of a new incognito context of the
// browser and reads its HTML once it is done.
func floorRender(root context.Context, pageURL string) error {
	ctx, cancel := context.WithTimeout(root, 30*time.Second)
	defer cancel()
	tab, closeTab := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer closeTab()
	stop := context.AfterFunc(ctx, closeTab)
	defer stop()
	var mu sync.Mutex
	inflight, lastNet := map[network.RequestID]bool{}, time.Now()
	if err := chromedp.Listen(tab, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			inflight[e.RequestID], lastNet = true, time.Now()
		case *network.EventLoadingFinished:
			delete(inflight, e.RequestID)
			lastNet = time.Now()
		case *network.EventLoadingFailed:
			delete(inflight, e.RequestID)
			lastNet = time.Now()
		case *fetch.EventRequestPaused:
			id, typ := e.RequestID, e.ResourceType
			go func() {
				if typ == network.ResourceTypeImage || typ == network.ResourceTypeMedia || typ == network.ResourceTypeFont {
					_, _ = chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: id, ErrorReason: network.ErrorReasonBlockedByClient})
					return
				}
				_, _ = chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
			}()
		}
	}); err != nil {
		return err
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		return err
	}
	if _, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return err
	}
	nav, err := chromedp.Call(tab, page.Navigate, page.NavigateParams{URL: pageURL})
	if err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("%s: %s", pageURL, nav.ErrorText)
	}
	// Trawl's rule: every 250 ms, once the document is parsed, the network
	// quiet for 500 ms (2 s while the page shows fewer than 200 characters),
	// or at least 200 characters unchanged across four checks.
	type probe struct {
		Ready string `json:"ready"`
		Text  int    `json:"text"`
	}
	lastText, stable := -1, 0
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		mu.Lock()
		busy, quiet := len(inflight), time.Since(lastNet)
		mu.Unlock()
		p, err := chromedp.Run(tab, chromedp.Evaluate[probe](`({ready: document.readyState, text: document.body ? document.body.innerText.length : 0})`))
		if err != nil {
			return err
		}
		if p.Ready == "loading" {
			continue
		}
		need := 500 * time.Millisecond
		if p.Text < 200 {
			need *= 4
		}
		if p.Text >= 200 && p.Text == lastText {
			stable++
		} else {
			stable = 0
		}
		lastText = p.Text
		done = busy == 0 && quiet >= need || stable >= 4
	}
	type doc struct {
		HTML string `json:"html"`
		URL  string `json:"url"`
	}
	d, err := chromedp.Run(tab, chromedp.Evaluate[doc](`({html: document.documentElement ? document.documentElement.outerHTML : "", url: location.href})`))
	if err != nil {
		return err
	}
	if !strings.Contains(d.HTML, "<body") {
		return fmt.Errorf("%s: no document read", pageURL)
	}
	return nil
}
