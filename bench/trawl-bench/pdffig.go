package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"
	"unsafe"

	"github.com/trawlhq/trawl/adapters/pdf"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/proctest"
)

// pdfPairs is how many alternated runs of each tool the medians come from.
const pdfPairs = 5

// pdfFigure converts each PDF of the document corpus with Trawl's reader
// as deployed (PDFium in WebAssembly, in a worker process that is the
// trawl binary started again, killed at the deadline; a fresh instance
// per document, the layout analysis included) and with poppler's
// `pdftotext -layout` (a process per file, as one would run it),
// alternated, and prints the medians of their CPU time (Trawl's process
// and its worker's, the collectors' included; pdftotext's process,
// start-up included) and their ratio: on a shared machine CPU time moves
// far less than wall time.
func pdfFigure() {
	fmt.Printf("\nPDF conversion beside poppler's pdftotext -layout, document corpus: CPU time, median of %d alternated runs each (wall time in brackets)\n", pdfPairs)
	floor, err := exec.LookPath("pdftotext")
	if err != nil {
		fmt.Printf("%-40s skipped: pdftotext is not installed (Debian: apt-get install poppler-utils)\n", "PDF conversion")
		return
	}
	dir := filepath.Join(filepath.Dir(filepath.Dir(articleDir())), "documents")
	work, bin := buildTrawl("trawl-bench-pdf")
	defer os.RemoveAll(work)
	c := pdf.New(pdf.Options{Exec: bin, CacheDir: filepath.Join(work, "pdfium-cache")})
	defer c.Close()
	convert := func(body []byte) (ports.Extracted, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		return c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: body})
	}
	fmt.Printf("%-40s %6s %19s %19s %7s\n", "document", "pages", "Trawl CPU (wall)", "pdftotext CPU (wall)", "ratio")
	var trawlSum, floorSum time.Duration
	for _, name := range []string{"report.pdf", "two-columns.pdf", "languages.pdf", "owner-password.pdf", "large.pdf"} {
		path := filepath.Join(dir, name)
		body, err := os.ReadFile(path)
		if err != nil {
			log.Fatal(err)
		}
		ex, err := convert(body) // the first also compiles PDFium
		if err != nil {
			fmt.Printf("%-40s skipped: %v\n", name, err)
			continue
		}
		if err := exec.Command(floor, "-layout", path, os.DevNull).Run(); err != nil {
			fmt.Printf("%-40s skipped: pdftotext: %v\n", name, err)
			continue
		}
		var ts, fs, tw, fw []time.Duration
		for range pdfPairs {
			runtime.GC()
			start, cpu := time.Now(), cpuNow()+childrenCPU()
			if _, err := convert(body); err != nil {
				log.Fatal(err)
			}
			runtime.GC() // the conversion pays for its garbage
			ts, tw = append(ts, cpuNow()+childrenCPU()-cpu), append(tw, time.Since(start))
			start = time.Now()
			cmd := exec.Command(floor, "-layout", path, "-")
			if err := cmd.Run(); err != nil {
				log.Fatal(err)
			}
			fs, fw = append(fs, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()), append(fw, time.Since(start))
		}
		t, f := medianOf(ts), medianOf(fs)
		trawlSum += t
		floorSum += f
		fmt.Printf("%-40s %6d %8.1fms (%6.0f) %8.1fms (%6.0f) %6.2fx\n", name, ex.Metadata.PageCount, ms(t), ms(medianOf(tw)), ms(f), ms(medianOf(fw)), float64(t)/float64(f))
	}
	if floorSum > 0 {
		fmt.Printf("%-40s %6s %8.1fms %8s %8.1fms %8s %6.2fx   (goal <= 3x)\n", "corpus", "", ms(trawlSum), "", ms(floorSum), "", float64(trawlSum)/float64(floorSum))
	}
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// childrenCPU is the CPU time of this process's live children (the PDF
// worker) so far, from each one's process CPU clock.
func childrenCPU() time.Duration {
	var sum time.Duration
	for _, pid := range proctest.Children(os.Getpid()) {
		// clock_getcpuclockid: the process-wide CPU clock of pid.
		clock := uintptr((^pid)<<3 | 2)
		var ts syscall.Timespec
		if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clock, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
			continue
		}
		sum += time.Duration(ts.Nano())
	}
	return sum
}
