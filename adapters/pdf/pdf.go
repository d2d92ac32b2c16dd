// Package pdf converts PDF documents to the Content object with PDFium, run
// as WebAssembly (wazero): no cgo, no external program. PDFium was chosen
// over a pure-Go parser by measurement (docs/documents.md).
//
// Every document gets a fresh PDFium instance with its own memory, capped
// (MemoryLimitBytes), and the call's context bounds its time. A converter
// given an executable (Options.Exec: the program itself, see
// ServeIfWorker) runs PDFium in worker processes, compiled without
// wazero's context checks (about three times faster), and kills the
// worker at the deadline; without one, PDFium runs in the process with the
// checks and the instance is killed mid-parse. A hostile file (a
// decompression bomb, a reference loop, deep nesting) costs at most the
// cap and the time budget.
package pdf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/trawlhq/trawl/adapters/docmodel"
	"github.com/trawlhq/trawl/adapters/pdf/pdfiumwasm"
	"github.com/trawlhq/trawl/ports"
)

// Options configure a Converter.
type Options struct {
	// MaxPages is the number of pages converted at most (default 500);
	// a longer document returns its first pages and a warning.
	MaxPages int
	// Workers is the number of documents converted at once (default 2);
	// more wait for a free worker within their context.
	Workers int
	// MemoryLimitBytes caps the memory of one document's PDFium instance
	// (default 256 MiB; a 300-page text PDF needs less than 64 MiB).
	MemoryLimitBytes int64
	// MaxChars caps the text read from a document (default 20 million
	// characters); past it the remaining pages are left out with a warning.
	MaxChars int
	// CacheDir keeps PDFium's compiled code on disk (wazero's compilation
	// cache), so that a restarted process loads it instead of compiling
	// it again; empty, or a directory that cannot be written: every
	// process compiles. The directory is the converter's own: the code
	// is kept in a subdirectory named after the module, and every other
	// entry (code compiled for an earlier module) is removed.
	CacheDir string
	// Exec is the program to run as a worker process (Executable): PDFium
	// runs there without wazero's context checks, and the worker is killed
	// at the document's deadline. Empty: PDFium runs in this process,
	// killable.
	Exec string
	// WorkerIdle is how long a worker process waits for a document before
	// it exits (default a minute).
	WorkerIdle time.Duration
	// WarmWorkers is the number of worker processes kept loaded (with
	// Exec; at most Workers; default 0): KeepWarm starts them, they do not
	// exit for idleness, and one that dies is replaced. A document then
	// does not wait for a worker to start and load PDFium (about a quarter
	// second), after a start or a quiet minute alike; each costs the
	// memory of a loaded worker at rest (docs/performance-footprint.md).
	WarmWorkers int
	// Logger takes what the converter does on its own: a worker kept
	// loaded that cannot start or load PDFium, or dies without a
	// document; nil: not logged.
	Logger *slog.Logger `json:"-"`
}

// Converter implements ports.DocumentConverter for PDF.
type Converter struct {
	opts  Options
	mem   *regions
	slots chan struct{} // one per worker
	ready chan struct{}
	start sync.Once
	pool  pdfium.Pool
	err   error
	once  sync.Once
	// mu guards closed and the hand-over of pool between init and Close.
	mu     sync.Mutex
	closed bool
	cache  wazero.CompilationCache
	// procs are the worker processes when Options.Exec is set.
	procs *procs
	// unkillable: PDFium is compiled without context checks (in a worker
	// process, which is killed instead).
	unkillable bool
}

var _ ports.DocumentConverter = (*Converter)(nil)

// New builds a converter. PDFium is compiled (a few seconds of CPU) on
// Warm or on the first conversion, which waits for it within its context.
func New(o Options) *Converter {
	if o.MaxPages <= 0 {
		o.MaxPages = 500
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	if o.MemoryLimitBytes <= 0 {
		o.MemoryLimitBytes = 256 << 20
	}
	if o.MaxChars <= 0 {
		o.MaxChars = 20_000_000
	}
	if o.WorkerIdle <= 0 {
		o.WorkerIdle = workerIdle
	}
	if o.WarmWorkers < 0 || o.Exec == "" {
		o.WarmWorkers = 0
	}
	o.WarmWorkers = min(o.WarmWorkers, o.Workers)
	c := &Converter{opts: o, mem: newRegions(), slots: make(chan struct{}, o.Workers), ready: make(chan struct{})}
	if o.Exec != "" {
		c.procs = &procs{opts: o, live: map[*proc]struct{}{}}
	}
	return c
}

// Warm compiles PDFium in the background, so that the first document does
// not wait for it. With worker processes it does nothing: a worker loads
// PDFium as it starts.
func (c *Converter) Warm() {
	if c.procs != nil {
		return
	}
	c.start.Do(func() { go c.init() })
}

// KeepWarm starts the WarmWorkers, which load PDFium before any document
// comes; with none (or PDFium in the process) it does nothing.
func (c *Converter) KeepWarm() {
	if c.procs != nil {
		c.procs.keepWarm()
	}
}

func (c *Converter) init() {
	pages := uint32(c.opts.MemoryLimitBytes / 65536)
	rc := wazero.NewRuntimeConfig().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(!c.unkillable).
		WithMemoryLimitPages(pages)
	if dir := c.opts.CacheDir; dir != "" {
		dir = filepath.Join(dir, cacheKey)
		removeStale(c.opts.CacheDir, cacheKey)
		// wazero keys its cache on the module and on the context checks;
		// code compiled without them is also kept in a directory of its
		// own, so the two never share a file whatever a later wazero does.
		if c.unkillable {
			dir = filepath.Join(dir, "unkillable")
		}
		if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			rc = rc.WithCompilationCache(cache)
			c.cache = cache
		}
	}
	pool, err := webassembly.InitWithWASM(webassembly.Config{
		WASM:    pdfiumwasm.Module, // PDFium reduced to the functions called here
		Context: experimental.WithMemoryAllocator(context.Background(), c.mem),
		MinIdle: 0, MaxIdle: c.opts.Workers, MaxTotal: c.opts.Workers,
		RuntimeConfig: rc,
		FSConfig:      wazero.NewFSConfig(), // no file system: documents come as bytes
		Stdout:        io.Discard, Stderr: io.Discard,
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(c.ready)
	if c.closed {
		// Closed while compiling: the pool is not handed out.
		if pool != nil {
			_ = pool.Close()
		}
		if c.cache != nil {
			_ = c.cache.Close(context.Background())
		}
		c.err = errClosed
		return
	}
	c.pool, c.err = pool, err
}

// cacheKey names the cache's subdirectory for this module: a new module
// (an upgrade of PDFium) compiles into a new one.
var cacheKey = "module-" + pdfiumwasm.SHA256[:16]

// removeStale removes the entries of dir other than keep: code compiled
// for an earlier module (about 15-22 MB each), which nothing would read
// again. One data directory serves one node at a time (its lock), so no
// running process of another version uses them.
func removeStale(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() != keep {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

var errClosed = errors.New("pdf: converter closed")

// Close releases PDFium. It does not wait for a compile still under way
// (a stopping server would wait seconds for nothing): the compile then
// releases what it built itself.
func (c *Converter) Close() error {
	if c.procs != nil {
		c.procs.close()
		return nil
	}
	started := true
	c.start.Do(func() { started = false })
	if !started {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.pool == nil {
		return nil
	}
	var err error
	c.once.Do(func() {
		err = c.pool.Close()
		if c.cache != nil {
			_ = c.cache.Close(context.Background())
		}
	})
	return err
}

// unavailable is the typed reason a PDF could not be converted for.
func unavailable(reason ports.DocumentReason, err error) error {
	return &ports.DocumentError{Reason: reason, Format: ports.DocumentPDF, Err: err}
}

// Convert implements ports.DocumentConverter.
func (c *Converter) Convert(ctx context.Context, r ports.DocumentRequest) (out ports.Extracted, err error) {
	if c.procs != nil {
		return c.convertInWorker(ctx, r)
	}
	c.Warm()
	select {
	case <-c.ready:
	case <-ctx.Done():
		return out, timeout(ctx)
	}
	if c.err != nil {
		return out, unavailable(ports.DocumentNoReader, c.err)
	}
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return out, timeout(ctx)
	}
	defer func() { <-c.slots }()
	// A worker slot is held, so the pool has an instance to give at once;
	// mu pairs the instance with the memory its instantiation allocated.
	c.mem.mu.Lock()
	inst, err := c.pool.GetInstanceWithContext(ctx)
	mem := c.mem.take()
	c.mem.mu.Unlock()
	if err != nil {
		mem.done()
		if ctx.Err() != nil {
			return out, timeout(ctx)
		}
		return out, unavailable(ports.DocumentNoReader, err)
	}
	// Kill the instance when the context ends: a call stuck in a hostile
	// document stops there.
	var killed sync.Mutex
	dead := false
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			killed.Lock()
			dead = true
			_ = inst.Kill()
			killed.Unlock()
		case <-done:
		}
	}()
	defer func() {
		close(done)
		killed.Lock()
		if !dead {
			_ = inst.Close()
		}
		killed.Unlock()
		mem.done() // nothing runs in the instance any more
		if p := recover(); p != nil {
			out, err = ports.Extracted{}, unavailable(ports.DocumentDamaged, fmt.Errorf("%v", p))
		}
		if err != nil && ctx.Err() != nil {
			err = timeout(ctx)
		}
	}()
	return c.convert(ctx, inst, r)
}

func timeout(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return unavailable(ports.DocumentTimeout, ctx.Err())
	}
	return unavailable(ports.DocumentCanceled, ctx.Err())
}

func (c *Converter) convert(ctx context.Context, inst pdfium.Pdfium, r ports.DocumentRequest) (ports.Extracted, error) {
	m, err := openModule(ctx, inst)
	if err != nil {
		return ports.Extracted{}, unavailable(ports.DocumentNoReader, err)
	}
	if c.unkillable {
		m.perChar = perCharRectsUnkillable
	}
	doc, password, err := m.open(r.Body)
	if err != nil {
		if password {
			return ports.Extracted{}, unavailable(ports.DocumentEncrypted, err)
		}
		return ports.Extracted{}, unavailable(ports.DocumentUnreadable, err)
	}
	defer doc.close()
	count := doc.pageCount()
	if m.err != nil {
		return ports.Extracted{}, unavailable(ports.DocumentUnreadable, m.err)
	}
	maxPages := c.opts.MaxPages
	if r.MaxPages > 0 {
		maxPages = r.MaxPages
	}
	n := min(count, maxPages)
	var pages [][]*line
	var heights []float64
	chars, read := 0, 0
	for i := 0; i < n; i++ {
		w, h, ok := doc.pageSize(i)
		if !ok {
			return ports.Extracted{}, unavailable(ports.DocumentDamaged, errors.Join(errors.New("pdf: no page size"), m.err))
		}
		runs, err := doc.text(i)
		if err != nil {
			return ports.Extracted{}, unavailable(ports.DocumentDamaged, err)
		}
		for _, rn := range runs {
			chars += utf8.RuneCountInString(rn.Text)
		}
		pages = append(pages, lines(page{Width: w, Height: h, Runs: runs}, i))
		heights = append(heights, h)
		read++
		if chars > c.opts.MaxChars {
			break
		}
	}
	if chars == 0 || blank(pages) {
		if count == 0 {
			return ports.Extracted{}, unavailable(ports.DocumentNoPages, nil)
		}
		if doc.hasImages(min(n, 10)) {
			return ports.Extracted{}, unavailable(ports.DocumentNoTextLayer, nil)
		}
		return ports.Extracted{}, unavailable(ports.DocumentNoText, nil)
	}
	rd := docmodel.Render(structure(pages, heights))
	out := ports.Extracted{HTML: rd.HTML, Markdown: rd.Markdown, Text: rd.Text, Metadata: metadata(doc)}
	out.Metadata.PageCount = count
	if read < count {
		out.Warning = fmt.Sprintf("The document has %d pages; only the first %d were converted.", count, read)
	}
	return out, nil
}

// blank says the lines hold white space only. Their texts are valid
// UTF-8 (strings.Map's output, see lines), so this is what trimming
// their concatenation would say.
func blank(pages [][]*line) bool {
	for _, ls := range pages {
		for _, l := range ls {
			if strings.TrimSpace(l.text) != "" {
				return false
			}
		}
	}
	return true
}

// metadata reads the document information dictionary and the catalog's
// declared language.
func metadata(doc *document) ports.Metadata {
	return ports.Metadata{
		Title:       strings.TrimSpace(doc.metaText("Title")),
		Author:      strings.TrimSpace(doc.metaText("Author")),
		Keywords:    strings.TrimSpace(doc.metaText("Keywords")),
		Description: strings.TrimSpace(doc.metaText("Subject")),
		Language:    strings.TrimSpace(doc.language()),
	}
}
