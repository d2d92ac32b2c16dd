package pdf

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/logtest"
)

// workerPids are the converter's live worker processes.
func (c *Converter) workerPids() []int {
	if c.procs == nil {
		return nil
	}
	return c.procs.pids()
}

// waitGone waits until process pid no longer exists (exited and reaped).
// waitOneGone waits until one of pids has exited.
func waitOneGone(t testing.TB, pids []int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		for _, pid := range pids {
			if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
				return
			}
		}
	}
	t.Fatalf("workers %v all still there", pids)
}

func waitGone(t testing.TB, pid int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			return
		}
	}
	t.Fatalf("worker %d still there", pid)
}

// A worker that dies mid-document (killed from outside, as the kernel's
// OOM killer would) fails that document cleanly, leaves no goroutine
// behind, and the next document gets a new worker.
func TestWorkerDiesMidDocument(t *testing.T) {
	c := New(Options{Workers: 1, CacheDir: cacheDir, Exec: Executable()})
	defer c.Close()
	warm(t, c)
	pids := c.workerPids()
	if len(pids) != 1 {
		t.Fatalf("workers %v, want one", pids)
	}
	runtime.GC()
	before := runtime.NumGoroutine()
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = syscall.Kill(pids[0], syscall.SIGKILL)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	_, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "large.pdf")})
	if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable {
		t.Fatalf("err = %v; want Unavailable", err)
	}
	t.Logf("worker killed mid-document: %v", err)
	waitGone(t, pids[0])
	if _, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")}); err != nil {
		t.Fatalf("next document: %v", err)
	}
	if now := c.workerPids(); len(now) != 1 || now[0] == pids[0] {
		t.Fatalf("workers %v after %v died", now, pids)
	}
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n := runtime.NumGoroutine(); n <= before {
			break
		} else if time.Now().After(end) {
			t.Fatalf("%d goroutines, %d before", n, before)
		}
	}
}

// A worker left without documents exits after the idle period; the next
// document starts another.
func TestWorkerExitsWhenIdle(t *testing.T) {
	c := New(Options{Workers: 1, CacheDir: cacheDir, Exec: Executable(), WorkerIdle: 200 * time.Millisecond})
	defer c.Close()
	warm(t, c)
	pids := c.workerPids()
	if len(pids) != 1 {
		t.Fatalf("workers %v, want one", pids)
	}
	waitGone(t, pids[0])
	// The process is gone once reaped; the converter learns it as Wait
	// returns, a moment later.
	for end := time.Now().Add(5 * time.Second); len(c.workerPids()) != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("workers %v once idle", c.workerPids())
		}
	}
	warm(t, c)
	if now := c.workerPids(); len(now) != 1 {
		t.Fatalf("workers %v, want a new one", now)
	}
}

// Close kills the workers, busy or idle, and later documents are refused.
func TestCloseKillsWorkers(t *testing.T) {
	c := New(Options{Workers: 2, CacheDir: cacheDir, Exec: Executable()})
	warm(t, c)
	idle := c.workerPids()
	done := make(chan error, 1)
	go func() {
		_, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "large.pdf")})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var de *ports.DocumentError
		if !failure.Is(content.DocumentFailure(err), failure.Unavailable) || !errors.As(err, &de) || de.Reason == ports.DocumentDamaged {
			t.Fatalf("busy document: %v; want unavailable, not damaged", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the busy document was not stopped")
	}
	for _, pid := range idle {
		waitGone(t, pid)
	}
	_, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")})
	if !failure.Is(content.DocumentFailure(err), failure.Unavailable) {
		t.Fatalf("after close: %v", err)
	}
}

// A worker (PDFium without context checks, its own way of reading a page)
// converts every corpus document exactly as PDFium in the process does:
// Markdown, HTML, text, metadata and warning.
func TestWorkerMatchesInProcess(t *testing.T) {
	skipUnderRace(t)
	for _, name := range []string{"report.pdf", "two-columns.pdf", "languages.pdf", "owner-password.pdf", "large.pdf", "real/libtasn1.pdf"} {
		body := read(t, name)
		var got [2]ports.Extracted
		for i, c := range []*Converter{inProcess(t), converter(t)} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			ex, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: body})
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got[i] = ex
		}
		if got[0] != got[1] {
			t.Errorf("%s: the worker's conversion differs from the process's", name)
		}
	}
}

// A worker gets the Go runtime's settings from the node's environment,
// not the rest of it (the node's secrets).
func TestWorkerEnvironment(t *testing.T) {
	t.Setenv("TRAWL_TEST_SECRET", "s3cr3t")
	t.Setenv("GOGC", "150")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/secrets/key.json")
	t.Setenv("GOPROXY", "https://user:token@proxy.example")
	env := workerEnviron()
	has := func(kv string) bool {
		for _, e := range env {
			if e == kv {
				return true
			}
		}
		return false
	}
	if has("TRAWL_TEST_SECRET=s3cr3t") || has("GOOGLE_APPLICATION_CREDENTIALS=/secrets/key.json") ||
		has("GOPROXY=https://user:token@proxy.example") || !has("GOGC=150") {
		t.Fatalf("worker environment %v", env)
	}
}

// oneWorker is a converter with one worker process, which has converted
// a document, and that worker's process id (Linux: the tests read /proc).
func oneWorker(t *testing.T) (*Converter, int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	c := New(Options{Workers: 1, CacheDir: cacheDir, Exec: Executable()})
	t.Cleanup(func() { _ = c.Close() })
	warm(t, c)
	pids := c.workerPids()
	if len(pids) != 1 {
		t.Fatalf("workers %v, want one", pids)
	}
	return c, pids[0]
}

// A worker's standard input and output are not its pipes: a library that
// prints to standard output cannot corrupt a reply.
func TestWorkerStandardStreamsAreNotItsPipes(t *testing.T) {
	_, pid := oneWorker(t)
	for fd, want := range map[int]string{0: "/dev/null", 1: "/dev/null", requestFD: "pipe:", replyFD: "pipe:"} {
		got, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(fd))
		if err != nil || !strings.HasPrefix(got, want) {
			t.Errorf("worker's descriptor %d is %q (%v), want %s", fd, got, err, want)
		}
	}
}

// A worker whose resident memory passes the reader's cap and the margin
// is killed mid-document: the document fails as damaged, and the next one
// gets a new worker. The margin is lowered so that every reading of the
// worker's memory passes the bound.
func TestWorkerKilledPastItsMemoryBound(t *testing.T) {
	c, pid := oneWorker(t)
	margin := workerMargin
	defer func() { workerMargin = margin }()
	workerMargin = -c.opts.MemoryLimitBytes - 1<<40
	_, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "large.pdf")})
	var de *ports.DocumentError
	if !errors.As(err, &de) || de.Reason != ports.DocumentDamaged || de.Err == nil || !strings.Contains(de.Err.Error(), "MiB, over its") {
		t.Fatalf("err = %v; want the document failed as damaged for its memory", err)
	}
	waitGone(t, pid)
	workerMargin = margin
	if _, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")}); err != nil {
		t.Fatalf("next document: %v", err)
	}
	if now := c.workerPids(); len(now) != 1 || now[0] == pid {
		t.Fatalf("workers %v after %d was killed", now, pid)
	}
}

// The program started with TRAWL_PDF_WORKER set but without a node's
// pipes (set by hand) says so and exits, writing nothing to whatever
// descriptors 3 and 4 are.
func TestWorkerRefusesDescriptorsThatAreNotPipes(t *testing.T) {
	dir := t.TempDir()
	in, err := os.Create(dir + "/in")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dir + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for _, files := range [][]*os.File{nil, {in, out}} {
		cmd := exec.Command(Executable())
		cmd.Env = []string{workerEnv + "={}"}
		cmd.ExtraFiles = files
		msg, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(msg), "not a node's pipes") {
			t.Errorf("with %d descriptors: %v, %q; want exit 2 and why", len(files), err, msg)
		}
	}
	if fi, err := out.Stat(); err != nil || fi.Size() != 0 {
		t.Fatalf("descriptor 4, a file: %v, %d bytes written", err, fi.Size())
	}
}

func TestStatmResident(t *testing.T) {
	page := int64(os.Getpagesize())
	for line, want := range map[string]int64{
		"306777 557 390 161 0 10201 0\n": (557 - 390) * page,
		"1000 40 40 1 0 5 0":             0,
		"1000 40 41 1 0 5 0":             0, // not a reading
		"1000 40":                        0,
		"":                               0,
		"a b c":                          0,
	} {
		if got := statmResident([]byte(line)); got != want {
			t.Errorf("statmResident(%q) = %d, want %d", line, got, want)
		}
	}
}

// Code compiled for an earlier module (the layout before the module's
// subdirectory, or another module's) is removed; this module's is kept.
func TestStaleCompiledCodeRemoved(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"wazero-v1.12.0-amd64-linux/old", "unkillable/wazero-v1.12.0-amd64-linux/old", "module-0123456789abcdef/unkillable/old", cacheKey + "/unkillable/kept", cacheKey + "/kept"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte("code"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	removeStale(dir, cacheKey)
	var left []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, rel)
		}
		return nil
	})
	if want := []string{cacheKey + "/kept", cacheKey + "/unkillable/kept"}; !slices.Equal(left, want) {
		t.Fatalf("left %q, want %q", left, want)
	}
}

// idleWorkers are the converter's loaded workers waiting for a document.
func (c *Converter) idleWorkers() []int {
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	var out []int
	for _, p := range c.procs.free {
		out = append(out, p.cmd.Process.Pid)
	}
	return out
}

// waitIdleWorkers waits until n loaded workers wait for a document.
func waitIdleWorkers(t testing.TB, c *Converter, n int) []int {
	t.Helper()
	for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if idle := c.idleWorkers(); len(idle) == n {
			return idle
		} else if time.Now().After(end) {
			t.Fatalf("idle workers %v, want %d", idle, n)
		}
	}
}

// Warm workers are loaded before the first document, serve it, outlive
// the idle period, and are replaced when they die; the others still exit
// when idle, and Close ends them all.
func TestWarmWorkers(t *testing.T) {
	c := New(Options{Workers: 2, WarmWorkers: 1, CacheDir: cacheDir, Exec: Executable(), WorkerIdle: 200 * time.Millisecond})
	if got := c.workerPids(); len(got) != 0 {
		t.Fatalf("workers %v before Warm", got)
	}
	c.KeepWarm()
	c.KeepWarm() // a second call starts nothing more
	waitIdleWorkers(t, c, 1)
	if all := c.workerPids(); len(all) != 1 {
		t.Fatalf("workers %v, want one", all)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// Two documents at once: the warm worker takes one, a second worker
	// starts for the other and exits once idle.
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")})
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(600 * time.Millisecond) // three idle periods
	now := waitIdleWorkers(t, c, 1)    // the warm one or the other: either may be kept
	for end := time.Now().Add(5 * time.Second); len(c.workerPids()) != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("workers %v once idle, want the warm one", c.workerPids())
		}
	}
	// Killed from outside, the warm worker is replaced without a document.
	_ = syscall.Kill(now[0], syscall.SIGKILL)
	waitGone(t, now[0])
	var next []int
	for end := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if next = c.idleWorkers(); len(next) == 1 && next[0] != now[0] {
			break
		} else if time.Now().After(end) {
			t.Fatalf("idle workers %v after %d was killed", next, now[0])
		}
	}
	if _, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")}); err != nil {
		t.Fatal(err)
	}
	if got := c.workerPids(); len(got) != 1 || got[0] != next[0] {
		t.Fatalf("workers %v, want the replacement %v", got, next)
	}
	c.Close()
	waitGone(t, next[0])
}

// A document that comes while the warm worker still loads PDFium waits
// for it rather than start (and load) a second worker.
func TestDocumentTakesTheLoadingWarmWorker(t *testing.T) {
	c := New(Options{Workers: 2, WarmWorkers: 1, CacheDir: cacheDir, Exec: Executable()})
	defer c.Close()
	c.KeepWarm()
	if idle := c.idleWorkers(); len(idle) != 0 {
		t.Fatalf("idle workers %v at once: the test needs one still loading", idle)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if _, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")}); err != nil {
		t.Fatal(err)
	}
	if all := c.workerPids(); len(all) != 1 {
		t.Fatalf("workers %v, want the warm one only", all)
	}
	waitIdleWorkers(t, c, 1)
}

// A warm worker that cannot load PDFium is not started again and again:
// a program that exits at once is started once, and the node says so.
func TestWarmWorkerThatCannotLoadIsNotRestarted(t *testing.T) {
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	prog := filepath.Join(dir, "worker")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho started >> "+starts+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var logs logtest.Buffer
	c := New(Options{Workers: 2, WarmWorkers: 2, Exec: prog, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer c.Close()
	c.KeepWarm()
	for end := time.Now().Add(time.Minute); countLines(starts) < 2 || len(c.workerPids()) > 0 || strings.Count(logs.String(), "could not load PDFium") < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("started %d times, workers %v, logged %q", countLines(starts), c.workerPids(), logs.String())
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := countLines(starts); n != 2 {
		t.Fatalf("started %d times, want 2 (once each)", n)
	}
}

// A warm worker that loads and then dies without a document (an
// out-of-memory killer at its load) is started again at once, then after
// a wait that doubles: not in a loop that takes a core.
func TestWarmWorkerThatDiesAfterLoadingBacksOff(t *testing.T) {
	dir := t.TempDir()
	var reply bytes.Buffer
	if err := gob.NewEncoder(&reply).Encode(workerReply{}); err != nil {
		t.Fatal(err)
	}
	loaded := filepath.Join(dir, "loaded")
	if err := os.WriteFile(loaded, reply.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	starts := filepath.Join(dir, "starts")
	prog := filepath.Join(dir, "worker")
	// Says it loaded PDFium on its replies pipe, then exits.
	script := "#!/bin/sh\necho started >> " + starts + "\ncat " + loaded + " >&4\nsleep 0.05\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var logs logtest.Buffer
	c := New(Options{Workers: 1, WarmWorkers: 1, Exec: prog, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	defer c.Close()
	begin := time.Now()
	c.KeepWarm()
	// The first death is replaced at once, the second after a second.
	for end := time.Now().Add(time.Minute); countLines(starts) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("started %d times in a minute", countLines(starts))
		}
	}
	if took := time.Since(begin); took < firstBackoff {
		t.Fatalf("three starts in %v: no wait before the third", took)
	}
	// The next wait is two seconds.
	time.Sleep(firstBackoff + firstBackoff/2)
	if n := countLines(starts); n != 3 {
		t.Fatalf("started %d times within the second wait, want 3", n)
	}
	if !strings.Contains(logs.String(), "exited before any document") {
		t.Fatalf("nothing logged: %q", logs.String())
	}
}

// A warm worker killed at a document's deadline died of the document, not
// as it loaded: it is replaced at once, whatever wait earlier deaths set.
func TestWarmWorkerKilledAtADeadlineIsReplacedAtOnce(t *testing.T) {
	c := New(Options{Workers: 1, WarmWorkers: 1, CacheDir: cacheDir, Exec: Executable()})
	defer c.Close()
	c.KeepWarm()
	first := waitIdleWorkers(t, c, 1)
	c.procs.mu.Lock()
	c.procs.backoff = maxBackoff // as after deaths before any document
	c.procs.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "large.pdf")}); err == nil {
		t.Skip("large.pdf converted within 30 ms: no deadline to kill at")
	}
	waitGone(t, first[0])
	for end := time.Now().Add(maxBackoff / 2); ; time.Sleep(10 * time.Millisecond) {
		if idle := c.idleWorkers(); len(idle) == 1 && idle[0] != first[0] {
			return
		} else if time.Now().After(end) {
			t.Fatalf("idle workers %v half a minute after %d was killed at a deadline", idle, first[0])
		}
	}
}

// countLines counts the lines of a file (0 when it does not exist).
func countLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// WarmWorkers is bounded by Workers and needs worker processes.
func TestWarmWorkersOption(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want int
	}{
		{Options{Exec: "/bin/true"}, 0},
		{Options{Exec: "/bin/true", WarmWorkers: 1}, 1},
		{Options{Exec: "/bin/true", Workers: 3, WarmWorkers: 5}, 3},
		{Options{Exec: "/bin/true", WarmWorkers: -1}, 0},
		{Options{WarmWorkers: 1}, 0}, // in the process: nothing to keep
	} {
		if got := New(tc.o).opts.WarmWorkers; got != tc.want {
			t.Errorf("%+v: WarmWorkers %d, want %d", tc.o, got, tc.want)
		}
	}
}

// A worker whose memory file could not be opened (the node short of
// descriptors for a moment) is still watched: the file is opened at the
// next reading; once the worker has exited, nothing is read.
func TestWorkerMemoryReadWhenItsFileOpensLate(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	c := New(Options{Workers: 1, CacheDir: cacheDir, Exec: Executable()})
	defer c.Close()
	p, err := c.procs.start()
	if err != nil {
		t.Fatal(err)
	}
	<-p.ready
	if rss := p.resident(); rss <= 0 {
		t.Fatalf("resident %d at the first reading", rss)
	}
	p.statmMu.Lock()
	_ = p.statm.Close()
	p.statm = nil // as if opening it had failed
	p.statmMu.Unlock()
	if rss := p.resident(); rss <= 0 {
		t.Fatalf("resident %d once the file opens again", rss)
	}
	c.procs.kill(p)
	<-p.exit
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		p.statmMu.Lock()
		gone := p.gone
		p.statmMu.Unlock()
		if gone {
			break
		} else if time.Now().After(end) {
			t.Fatal("the exit was not recorded")
		}
	}
	if rss := p.resident(); rss != 0 {
		t.Fatalf("resident %d after the worker exited", rss)
	}
}
