package pdf

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pdftest"
)

// procStatus reads a memory figure (VmRSS, VmHWM) of this process from
// /proc, in bytes: what the kernel holds for it, Go heap, WebAssembly
// memory and everything else together.
func procStatus(t testing.TB, field string) int64 {
	t.Helper()
	return pidStatus(t, "self", field)
}

// pidStatus reads a memory figure of process pid ("self": this one).
func pidStatus(t testing.TB, pid, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// settle returns what the Go heap does not need to the system and reads
// the resident size; resetPeak starts VmHWM again from there.
func settle(t testing.TB) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return procStatus(t, "VmRSS")
}

func resetPeak(t testing.TB, pid string) {
	if err := os.WriteFile("/proc/"+pid+"/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident size: %v", err)
	}
}

// tree is this process and the converters' workers, as /proc names them.
func tree(cs ...*Converter) []string {
	out := []string{"self"}
	for _, c := range cs {
		for _, pid := range c.workerPids() {
			out = append(out, strconv.Itoa(pid))
		}
	}
	return out
}

// treeStatus sums a memory figure over processes; one that has exited
// since counts for nothing.
func treeStatus(t testing.TB, pids []string, field string) int64 {
	var sum int64
	for _, pid := range pids {
		if pid != "self" {
			if _, err := os.Stat("/proc/" + pid); err != nil {
				continue
			}
		}
		sum += pidStatus(t, pid, field)
	}
	return sum
}

// drawingPages is a document of pages each drawing perPage bytes of path
// operators (a line, stroked, over and over), deflated.
func drawingPages(pages, perPage int) []byte {
	op := []byte("10 10 m 300 400 l S\n")
	stream := deflate(bytes.Repeat(op, perPage/len(op)), 1)
	objs := [][]byte{[]byte("<< /Type /Catalog /Pages 2 0 R >>"), nil}
	var kids strings.Builder
	for i := range pages {
		fmt.Fprintf(&kids, "%d 0 R ", 3+2*i)
		objs = append(objs,
			fmt.Appendf(nil, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R >>", 4+2*i),
			append(append(fmt.Appendf(nil, "<< /Length %d /Filter /FlateDecode >>\nstream\n", len(stream)), stream...), "\nendstream"...))
	}
	objs[1] = fmt.Appendf(nil, "<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), pages)
	return pdftest.Build(objs...)
}

// TestMemoryCap: a document that would need far more than the reader's
// memory cap raises the peak resident memory of the process and its
// worker processes by no more than the cap and a stated constant, eight
// at once by no more than workers x cap and the constant, and the memory
// is returned afterwards. The default cap (256 MiB) takes the inflation
// bomb alone; a converter with a 64 MiB cap and four workers takes each
// document alone and eight at once, which proves the same bound in a
// quarter of the time. The workers are started before (each holds its own
// compiled PDFium, about 40 MB, counted in the figure at rest), and the
// peak is the sum of each process's own, which is no less than their peak
// together.
func TestMemoryCap(t *testing.T) {
	skipUnderRace(t)
	const constant = 48 << 20
	small := New(Options{MemoryLimitBytes: 64 << 20, Workers: 4, CacheDir: cacheDir, Exec: Executable()})
	defer small.Close()
	for _, c := range []*Converter{converter(t), small} {
		// Every worker started: as many documents at once as workers.
		var wg sync.WaitGroup
		for range c.opts.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				warm(t, c)
			}()
		}
		wg.Wait()
	}
	// 2 GiB of content stream packed into 2 MB.
	bomb := onePage(deflate(make([]byte, 1<<20), 2048), "/Filter /FlateDecode ")
	// 1 GiB of path operators over 64 pages.
	drawing := drawingPages(64, 16<<20)
	for _, tc := range []struct {
		name string
		c    *Converter
		doc  []byte
		n    int
	}{
		{"inflates to 2 GiB, cap 256 MiB", converter(t), bomb, 1},
		{"inflates to 2 GiB, cap 64 MiB", small, bomb, 1},
		{"inflates to 2 GiB x8, cap 64 MiB", small, bomb, 8},
		{"1 GiB of drawing, cap 64 MiB", small, drawing, 1},
		{"1 GiB of drawing x8, cap 64 MiB", small, drawing, 8},
	} {
		c, doc, n := tc.c, tc.doc, tc.n
		t.Run(tc.name, func(t *testing.T) {
			settle(t)
			pids := tree(converter(t), small)
			base := treeStatus(t, pids, "VmRSS")
			for _, pid := range pids {
				resetPeak(t, pid)
			}
			start := time.Now()
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					_, errs[i] = c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: doc})
				}()
			}
			wg.Wait()
			took := time.Since(start)
			// A worker started since (one killed on its document's
			// deadline, replaced) counts whole.
			peak := treeStatus(t, tree(converter(t), small), "VmHWM") - base
			runtime.GC() // no forced return to the system: what a server gets
			after := treeStatus(t, tree(converter(t), small), "VmRSS") - base
			bound := int64(min(n, c.opts.Workers))*c.opts.MemoryLimitBytes + constant
			t.Logf("%d document(s) of %d bytes: %v, peak resident +%d MiB (bound %d MiB), afterwards +%d MiB; %v",
				n, len(doc), took.Round(time.Millisecond), peak>>20, bound>>20, after>>20, message(errs[0]))
			if peak > bound {
				t.Errorf("peak resident memory +%d MiB, over %d MiB", peak>>20, bound>>20)
			}
			if after > constant {
				t.Errorf("+%d MiB still resident afterwards", after>>20)
			}
		})
	}
}

func message(err error) string {
	if fe, ok := failure.As(content.DocumentFailure(err)); ok {
		return fe.Message
	}
	return fmt.Sprint(err)
}
