package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
	"github.com/trawlhq/trawl/testkit/pdftest"
)

func onePage(content []byte, filter string) []byte {
	stream := fmt.Appendf(nil, "<< /Length %d %s>>\nstream\n", len(content), filter)
	stream = append(append(stream, content...), "\nendstream"...)
	return pdftest.Build(
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"),
		stream,
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
	)
}

func deflate(b []byte, repeat int) []byte {
	var out bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	for range repeat {
		zw.Write(b)
	}
	zw.Close()
	return out.Bytes()
}

// A hand-made PDF is read: the builder itself is sound.
func TestBuiltPDF(t *testing.T) {
	doc := onePage([]byte("BT /F1 12 Tf 72 700 Td (Hello from a hand-made page.) Tj ET"), "")
	ex, err := converter(t).Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: doc})
	if err != nil || ex.Text != "Hello from a hand-made page." || ex.Metadata.PageCount != 1 {
		t.Fatalf("%q %v", ex.Text, err)
	}
	// Pages without text or images are not called scanned.
	_, err = converter(t).Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: manyEmptyPages(2)})
	if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable || fe.Message != "The document could not be converted: it has no text." {
		t.Fatalf("empty pages: %v", err)
	}
}

// Hostile documents cost bounded time and memory, fail (or yield what text
// they have) with an Unavailable error, and the converter keeps answering.
func TestHostileDocuments(t *testing.T) {
	skipUnderRace(t)
	zeros := make([]byte, 1<<20)
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	cases := map[string][]byte{
		// 2 GiB of content stream from 2 MB: past the reader's memory cap.
		"decompression bomb": onePage(deflate(zeros, 2048), "/Filter /FlateDecode "),
		"deep nesting": pdftest.Build(
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /X "+deep+" >> >>"),
		),
		"page tree loop": pdftest.Build(
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>"),
			[]byte("<< /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >>"),
		),
		"reference loop": pdftest.Build(
			[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
			[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
			[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"),
			[]byte("5 0 R"),
			[]byte("4 0 R"),
		),
		"truncated":  onePage([]byte("BT /F1 12 Tf 72 700 Td (cut) Tj ET"), "")[:200],
		"not a pdf":  []byte("%PDF-1.7\nnothing else at all"),
		"many pages": manyEmptyPages(5000),
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			_, err := converter(t).Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: doc})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			t.Logf("%s: %d bytes, %v, Go heap +%d MiB, %v", name, len(doc), took.Round(time.Millisecond), (after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))>>20, err)
			if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable {
				t.Errorf("err = %v; want Unavailable", err)
			}
			if took > 25*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
	if _, err := convert(t, "report.pdf", 0); err != nil {
		t.Fatalf("the converter no longer answers: %v", err)
	}
}

func manyEmptyPages(n int) []byte {
	var kids strings.Builder
	objs := [][]byte{[]byte("<< /Type /Catalog /Pages 2 0 R >>"), nil}
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", i+3)
		objs = append(objs, []byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>"))
	}
	objs[1] = fmt.Appendf(nil, "<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), n)
	return pdftest.Build(objs...)
}

// A conversion that outlives its context is stopped, and says so: the
// worker process killed, or PDFium's instance in the process.
func TestTimeLimit(t *testing.T) {
	body := read(t, "large.pdf")
	for name, c := range map[string]*Converter{"worker": converter(t), "in the process": inProcess(t)} {
		t.Run(name, func(t *testing.T) {
			warm(t, c)
			pids := c.workerPids()
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: body})
			if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "time limit") {
				t.Fatalf("err = %v", err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Fatalf("stopped after %v", took)
			}
			if len(pids) > 0 { // the worker that had the document is killed; idle ones may stay
				waitOneGone(t, pids)
			}
			ctx, cancel = context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			if _, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: read(t, "report.pdf")}); err != nil {
				t.Fatalf("the converter no longer answers: %v", err)
			}
		})
	}
}

// FuzzConvert: any bytes give a result or an Unavailable error, never a
// panic, within bounded time.
func FuzzConvert(f *testing.F) {
	skipUnderRace(f)
	f.Add(onePage([]byte("BT /F1 12 Tf 72 700 Td (Hello) Tj ET"), ""))
	f.Add(read(f, "two-columns.pdf"))
	f.Add(manyEmptyPages(3))
	// PDFium compiles before the first input: it takes longer than the
	// fuzzer allows one input.
	warm(f, converter(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := converter(t).Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: b})
		if err != nil {
			if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable {
				t.Fatalf("err = %v", err)
			}
		}
	})
}

// With every worker busy, a document waits for one within its own time
// budget and says so when the budget runs out; the busy worker's document
// is unaffected, and the worker serves the next one.
func TestWorkersBusy(t *testing.T) {
	skipUnderRace(t) // a second PDFium compile takes minutes there
	c := New(Options{Workers: 1, CacheDir: cacheDir, Exec: Executable()})
	defer c.Close()
	warm(t, c)
	slow := read(t, "report.pdf")
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		_, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: slow})
		done <- err
	}()
	<-started
	time.Sleep(5 * time.Millisecond) // let the first document take the worker
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err := c.Convert(ctx, ports.DocumentRequest{Format: ports.DocumentPDF, Body: slow})
	if fe, ok := failure.As(content.DocumentFailure(err)); !ok || fe.Kind != failure.Unavailable || !strings.Contains(fe.Message, "time limit") {
		t.Fatalf("waiting document: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("first document: %v", err)
	}
	if _, err := c.Convert(context.Background(), ports.DocumentRequest{Format: ports.DocumentPDF, Body: slow}); err != nil {
		t.Fatalf("next document: %v", err)
	}
}
