package pdf

import (
	"bufio"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// Worker processes. PDFium compiled with wazero's context checks (killable
// in the process) runs about three times slower than without them: the
// checks sit in every loop of the module, and every call into it starts a
// goroutine to watch the context (docs/performance-footprint.md). A
// converter given an executable (Options.Exec) runs PDFium without them, in
// worker processes: the program itself started again, which serves
// documents one after the other on a pipe. The time bound comes from the
// operating system: at the document's deadline the worker is killed
// (SIGKILL) wherever it is, and the next document gets another. Its
// memory bound: the instance's linear memory is capped as in the process,
// and the parent watches the worker's resident memory and kills it past
// the cap and a margin. A worker left idle exits.

// workerEnv, set in a worker's environment, holds its options (JSON).
const workerEnv = "TRAWL_PDF_WORKER"

// serves says ServeIfWorker was called: this program can be a worker.
var serves atomic.Bool

// A worker reads documents on file descriptor 3 and writes its replies on
// 4, pipes of their own: its standard input and output are /dev/null, so
// nothing a library prints can corrupt a reply.
const requestFD, replyFD = 3, 4

// ServeIfWorker is called first thing in main by a program whose PDFs are
// converted in worker processes. Started as a worker, it serves documents
// on its pipes and exits; otherwise it returns, and Executable names this
// program as the worker to start.
func ServeIfWorker() {
	spec, ok := os.LookupEnv(workerEnv)
	if !ok {
		serves.Store(true)
		return
	}
	in, out := os.NewFile(requestFD, "pdf-requests"), os.NewFile(replyFD, "pdf-replies")
	if !isPipe(in) || !isPipe(out) {
		// Set by hand, without a node's pipes: nothing is read from or
		// written to whatever descriptors 3 and 4 are.
		fmt.Fprintf(os.Stderr, "%s is set: this process would be a PDF worker, but descriptors %d and %d are not a node's pipes\n", workerEnv, requestFD, replyFD)
		os.Exit(2)
	}
	os.Exit(serveWorker(spec, in, out))
}

// isPipe tells an open descriptor that is a pipe.
func isPipe(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

// Executable is this program's path when it serves as a worker (it called
// ServeIfWorker), "" otherwise: the converter then runs PDFium in the
// process, killable.
func Executable() string {
	if !serves.Load() {
		return ""
	}
	// On Linux the running program itself, even once its file on disk
	// was replaced or removed by an upgrade: a worker is always the
	// node's own version.
	if runtime.GOOS == "linux" {
		if _, err := os.Stat("/proc/self/exe"); err == nil {
			return "/proc/self/exe"
		}
	}
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

// workerIdle is how long a worker waits for a document before it exits
// (Options.WorkerIdle's default).
const workerIdle = time.Minute

// workerMargin is the resident memory a worker may take for a document
// beyond the reader's cap (the layout analysis, the Go runtime's share)
// before it is killed.
var workerMargin int64 = 48 << 20

// workerRequest is one document sent to a worker.
type workerRequest struct {
	Body     []byte
	MaxPages int
}

// workerReply is a worker's answer: the converted document, or the reason
// it could not be converted and the reader's error.
type workerReply struct {
	Out    ports.Extracted
	Failed bool
	Reason ports.DocumentReason
	Err    string
}

// serveWorker loads PDFium (not killable), says so with an empty reply,
// then converts documents until its input closes.
func serveWorker(spec string, in *os.File, out *os.File) int {
	var o Options
	if err := json.Unmarshal([]byte(spec), &o); err != nil {
		fmt.Fprintln(os.Stderr, "pdf worker:", err)
		return 2
	}
	o.Workers, o.Exec = 1, ""
	// A stop signal sent to the node's whole group or cgroup (Ctrl-C,
	// systemd) is the node's to act on: it finishes its requests, which
	// need their workers, then closes them.
	signal.Ignore(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// A worker whose parent died (killed, so it never closed the pipe)
	// would finish its document unbounded: it exits instead.
	parent := os.Getppid()
	go func() {
		for range time.Tick(time.Second) {
			if os.Getppid() != parent {
				os.Exit(1)
			}
		}
	}()
	c := New(o)
	c.unkillable = true
	defer c.Close()
	c.Warm()
	<-c.ready
	w := bufio.NewWriter(out)
	enc, dec := gob.NewEncoder(w), gob.NewDecoder(bufio.NewReader(in))
	reply := func(r workerReply) bool { return enc.Encode(r) == nil && w.Flush() == nil }
	if c.err != nil {
		reply(workerReply{Failed: true, Reason: ports.DocumentNoReader, Err: c.err.Error()})
		return 1
	}
	if !reply(workerReply{}) {
		return 1
	}
	// Loading PDFium leaves tens of MB of garbage (the cached code read
	// into the heap before it is copied to executable memory, the
	// module's decoding): handed back while the first document converts.
	go debug.FreeOSMemory()
	for {
		var req workerRequest
		if err := dec.Decode(&req); err != nil {
			return 0 // the parent closed the pipe: idle, or stopping
		}
		ex, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: req.Body, MaxPages: req.MaxPages})
		r := workerReply{Out: ex}
		if err != nil {
			r = workerReply{Failed: true, Reason: ports.DocumentDamaged, Err: err.Error()}
			var de *ports.DocumentError
			if errors.As(err, &de) {
				r.Reason, r.Err = de.Reason, ""
				if de.Err != nil {
					r.Err = de.Err.Error()
				}
			}
		}
		if !reply(r) {
			return 1
		}
	}
}

// procs are a converter's worker processes.
type procs struct {
	opts Options
	mu   sync.Mutex
	free []*proc // idle, the most recently used last
	// loading are warm workers still loading PDFium: a document that
	// finds no idle worker takes one rather than start another.
	loading []*proc
	live    map[*proc]struct{}
	shut    bool
	// warming serialises keepWarm, so that two calls do not both start
	// the missing worker.
	warming sync.Mutex
	// backoff is the wait before a worker kept loaded that died without
	// a document is started again (doubled each time, up to a minute;
	// back to none once a worker converts a document): one that an
	// out-of-memory killer ends as it loads does not take a core.
	backoff time.Duration
}

// The bounds of procs.backoff.
const firstBackoff, maxBackoff = time.Second, time.Minute

// proc is one worker process.
type proc struct {
	cmd     *exec.Cmd
	in      *os.File // the worker's requests pipe (its requestFD)
	out     *os.File // its replies pipe (its replyFD)
	w       *bufio.Writer
	enc     *gob.Encoder
	dec     *gob.Decoder
	ready   chan struct{} // closed at the worker's first reply: PDFium loaded, or loadErr
	loadErr error         // why the worker could not load PDFium; set before ready closes
	exit    chan struct{} // closed once the process has exited
	idle    *time.Timer
	// statm is the worker's /proc/<pid>/statm, opened at the first
	// reading and kept open: its resident memory is read every rssEvery
	// while it converts, and opening the file each time cost the node
	// more than reading it. statmMu guards it and gone (the process
	// exited: statm closed for good).
	statmMu sync.Mutex
	statm   *os.File
	gone    bool
	// given says the worker was given a document (guarded by the procs'
	// mu): one that dies after that, of the document or at its deadline,
	// is replaced at once.
	given bool
}

// loaded tells a worker that loaded PDFium (a warm worker that exits is
// replaced only then, so one that cannot load is not started again and
// again).
func (p *proc) loaded() bool {
	select {
	case <-p.ready:
		return p.loadErr == nil
	default:
		return false
	}
}

var errStopped = errors.New("pdf: the worker stopped")

// start runs a worker; its first reply arrives on ready.
func (ps *procs) start() (*proc, error) {
	spec, err := json.Marshal(ps.opts)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(ps.opts.Exec)
	cmd.Env = append(workerEnviron(), workerEnv+"="+string(spec))
	cmd.ExtraFiles = []*os.File{inR, outW} // the worker's requestFD and replyFD
	p := &proc{cmd: cmd, in: inW, out: outR, w: bufio.NewWriter(inW), ready: make(chan struct{}), exit: make(chan struct{})}
	p.enc, p.dec = gob.NewEncoder(p.w), gob.NewDecoder(bufio.NewReader(outR))
	ps.mu.Lock()
	if ps.shut {
		err = errClosed
	} else if err = cmd.Start(); err == nil {
		ps.live[p] = struct{}{}
	}
	ps.mu.Unlock()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		close(p.exit)
		_ = p.in.Close()
		// A worker that wrote its first reply and exited at once: the
		// reply is read before the pipe closes, so that the worker counts
		// as loaded (its write end closed with it: the read ends now).
		select {
		case <-p.ready:
		case <-time.After(time.Second):
		}
		_ = p.out.Close() // a read still waiting on it ends
		p.statmMu.Lock()
		p.gone = true
		if p.statm != nil {
			_ = p.statm.Close()
			p.statm = nil
		}
		p.statmMu.Unlock()
		ps.mu.Lock()
		delete(ps.live, p)
		// Died while idle: no longer handed out. One still loading is left
		// to its keepWarm, which tells a worker taken by a document from
		// one that could not load by finding it in loading.
		ps.free = slices.DeleteFunc(ps.free, func(q *proc) bool { return q == p })
		refill := !ps.shut && p.loaded() && len(ps.live) < ps.opts.WarmWorkers
		var wait time.Duration
		if refill && !p.given {
			wait = ps.backoff
			ps.backoff = min(max(2*ps.backoff, firstBackoff), maxBackoff)
		}
		ps.mu.Unlock()
		switch {
		case !refill:
		case wait == 0:
			ps.keepWarm()
		default:
			ps.logWarn("a PDF worker kept loaded exited before any document; starting another", "after", wait)
			time.AfterFunc(wait, ps.keepWarm)
		}
	}()
	go func() {
		var r workerReply
		err := p.dec.Decode(&r)
		if err == nil && r.Failed {
			err = errors.New(r.Err)
		}
		p.loadErr = err
		close(p.ready)
	}()
	return p, nil
}

// keepWarm starts workers until WarmWorkers are live; each joins the idle
// ones once it has loaded PDFium, and one that cannot load is killed and
// not replaced.
func (ps *procs) keepWarm() {
	ps.warming.Lock()
	defer ps.warming.Unlock()
	// Counted once: a worker that exits while the others start is not
	// replaced here (its own exit decides), so a program that fails at
	// once is not started in a loop.
	ps.mu.Lock()
	need := ps.opts.WarmWorkers - len(ps.live)
	ps.mu.Unlock()
	for range need {
		p, err := ps.start()
		if err != nil {
			if !errors.Is(err, errClosed) {
				ps.logWarn("a PDF worker kept loaded could not start", "err", err)
			}
			return
		}
		ps.mu.Lock()
		ps.loading = append(ps.loading, p)
		ps.mu.Unlock()
		go func() {
			<-p.ready
			ps.mu.Lock()
			i := slices.Index(ps.loading, p)
			if i >= 0 {
				ps.loading = slices.Delete(ps.loading, i, i+1)
			}
			ps.mu.Unlock()
			taken := i < 0
			switch {
			case taken: // by a document, which waited for the load
			case p.loadErr != nil:
				ps.kill(p)
				if !ps.closing() {
					ps.logWarn("a PDF worker kept loaded could not load PDFium; the next document starts one", "err", p.loadErr)
				}
			default:
				ps.put(p)
			}
		}()
	}
}

// get returns an idle worker, or starts one.
func (ps *procs) get() (*proc, error) {
	ps.mu.Lock()
	for len(ps.free) > 0 {
		p := ps.free[len(ps.free)-1]
		ps.free = ps.free[:len(ps.free)-1]
		p.idle.Stop()
		select {
		case <-p.exit:
			continue // died while idle
		default:
		}
		ps.mu.Unlock()
		return p, nil
	}
	if len(ps.loading) > 0 {
		p := ps.loading[0]
		ps.loading = ps.loading[1:]
		ps.mu.Unlock()
		return p, nil
	}
	ps.mu.Unlock()
	return ps.start()
}

// put takes a worker back; it exits if no document comes within the idle
// period, unless it is one of the WarmWorkers kept idle.
func (ps *procs) put(p *proc) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.shut {
		p.stop()
		return
	}
	select {
	case <-p.exit:
		return // died since its reply: its exit has been handled
	default:
	}
	ps.free = append(ps.free, p)
	p.idle = time.AfterFunc(ps.opts.WorkerIdle, func() {
		ps.mu.Lock()
		defer ps.mu.Unlock()
		if len(ps.free) <= ps.opts.WarmWorkers {
			return // kept loaded; taken, it is put back with a new period
		}
		for i, q := range ps.free {
			if q == p {
				ps.free = append(ps.free[:i], ps.free[i+1:]...)
				p.stop()
				return
			}
		}
	})
}

// give records that p is given a document: if it dies now, it died of
// the document or at its deadline, not as it loaded.
func (ps *procs) give(p *proc) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p.given = true
}

// served records a worker's reply to a document: workers load and work,
// and the wait before replacing one that dies unused is back to none.
func (ps *procs) served() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.backoff = 0
}

// logWarn logs what the workers do on their own, when a logger is set.
func (ps *procs) logWarn(msg string, args ...any) {
	if ps.opts.Logger != nil {
		ps.opts.Logger.Warn(msg, args...)
	}
}

// stop closes an idle worker's input: it exits on its own.
func (p *proc) stop() { _ = p.in.Close() }

// kill ends a worker wherever it is; what the parent holds of it is
// released once it has exited.
func (ps *procs) kill(p *proc) { _ = p.cmd.Process.Kill() }

// closing tells whether close was called.
func (ps *procs) closing() bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.shut
}

// close kills every worker, idle or busy.
func (ps *procs) close() {
	ps.mu.Lock()
	ps.shut = true
	all := make([]*proc, 0, len(ps.live))
	for p := range ps.live {
		all = append(all, p)
	}
	ps.free = nil
	ps.mu.Unlock()
	for _, p := range all {
		_ = p.cmd.Process.Kill()
	}
}

// pids are the live workers' process ids.
func (ps *procs) pids() []int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []int
	for p := range ps.live {
		select {
		case <-p.exit:
		default:
			out = append(out, p.cmd.Process.Pid)
		}
	}
	return out
}

// rssEvery is how often a busy worker's resident memory is read.
const rssEvery = 20 * time.Millisecond

// convertInWorker sends the document to a worker and waits for its reply
// within ctx; at the deadline, or past its memory bound, the worker is
// killed.
func (c *Converter) convertInWorker(ctx context.Context, r ports.DocumentRequest) (ports.Extracted, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return ports.Extracted{}, timeout(ctx)
	}
	p, err := c.procs.get()
	if err != nil {
		<-c.slots
		return ports.Extracted{}, unavailable(ports.DocumentNoReader, err)
	}
	// The worker loads PDFium first (trusted work, no document yet): a
	// caller whose time runs out meanwhile leaves it loading, and it
	// serves the next document; its slot is held until then.
	select {
	case <-p.ready:
		if p.loadErr != nil {
			c.procs.kill(p)
			<-c.slots
			return ports.Extracted{}, unavailable(ports.DocumentNoReader, p.loadErr)
		}
	case <-ctx.Done():
		go func() {
			<-p.ready
			if p.loadErr != nil {
				c.procs.kill(p)
			} else {
				c.procs.put(p)
			}
			<-c.slots
		}()
		return ports.Extracted{}, timeout(ctx)
	}
	defer func() { <-c.slots }()
	c.procs.give(p)
	base := p.resident()
	done := make(chan error, 1)
	var reply workerReply
	go func() {
		err := p.enc.Encode(workerRequest{Body: r.Body, MaxPages: r.MaxPages})
		if err == nil {
			err = p.w.Flush()
		}
		if err == nil {
			err = p.dec.Decode(&reply)
		}
		done <- err
	}()
	tick := time.NewTicker(rssEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				c.procs.kill(p)
				if ctx.Err() != nil {
					return ports.Extracted{}, timeout(ctx)
				}
				if c.procs.closing() {
					return ports.Extracted{}, unavailable(ports.DocumentNoReader, fmt.Errorf("%w: %v", errClosed, err))
				}
				// A worker ignores stop signals and has no deadline of
				// its own: one that died converting is taken to have
				// died of the document.
				return ports.Extracted{}, unavailable(ports.DocumentDamaged, fmt.Errorf("%w: %v", errStopped, err))
			}
			c.procs.served()
			c.procs.put(p)
			if reply.Failed {
				var err error
				if reply.Err != "" {
					err = errors.New(reply.Err)
				}
				return ports.Extracted{}, unavailable(reply.Reason, err)
			}
			return reply.Out, nil
		case <-ctx.Done():
			c.procs.kill(p)
			<-done // the pipes close with the process
			return ports.Extracted{}, timeout(ctx)
		case <-tick.C:
			rss := p.resident()
			if rss > 0 && (base == 0 || rss < base) {
				// The worker handed memory back (a new worker's load
				// garbage is returned while its first document converts):
				// the bound is taken from its lowest reading.
				base = rss
			}
			if base > 0 && rss > base+c.opts.MemoryLimitBytes+workerMargin {
				c.procs.kill(p)
				<-done
				return ports.Extracted{}, unavailable(ports.DocumentDamaged, fmt.Errorf("pdf: the reader took %d MiB, over its %d MiB", (rss-base)>>20, c.opts.MemoryLimitBytes>>20))
			}
		}
	}
}

// resident is the worker's anonymous resident memory in bytes (what a
// document can grow: the instance's memory, the Go heap; not the
// program's own pages, which the kernel may drop and read back), 0 when
// unknown (no /proc, or the process has exited).
func (p *proc) resident() int64 {
	p.statmMu.Lock()
	defer p.statmMu.Unlock()
	if p.statm == nil {
		if p.gone || runtime.GOOS != "linux" {
			return 0
		}
		// Opened at the first reading; one that fails (descriptors short
		// for a moment) is tried again at the next, so that the bound is
		// not off for the worker's life.
		f, err := os.Open("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/statm")
		if err != nil {
			return 0
		}
		p.statm = f
	}
	var buf [128]byte
	n, err := p.statm.ReadAt(buf[:], 0)
	if n == 0 || (err != nil && !errors.Is(err, io.EOF)) {
		return 0
	}
	return statmResident(buf[:n])
}

// statmResident is the anonymous resident memory in a statm line ("size
// resident shared ..." in pages, shared being the pages backed by a file
// or shared memory): resident less shared; 0 when the line is not one.
func statmResident(b []byte) int64 {
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0
	}
	resident, err1 := strconv.ParseInt(f[1], 10, 64)
	shared, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || shared > resident {
		return 0
	}
	return (resident - shared) * int64(os.Getpagesize())
}

// workerEnviron is the part of this process's environment a worker gets:
// the Go runtime's settings, not the node's secrets (nor anything else
// named GO..., such as GOOGLE_APPLICATION_CREDENTIALS); a worker reads
// hostile documents.
func workerEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG", "GOTRACEBACK", "GOCOVERDIR":
			env = append(env, kv)
		}
	}
	return env
}
