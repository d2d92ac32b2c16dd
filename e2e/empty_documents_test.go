package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trawlhq/trawl/testkit/pdftest"
	"github.com/trawlhq/trawl/testkit/proctest"
	"github.com/trawlhq/trawl/testkit/sites"
)

// runningLine is a page's content stream holding only a header line at the
// top of the page: repeated on every page, layout removes it.
func runningLine() []byte {
	return pdftest.Stream("BT /F1 9 Tf 72 760 Td (Harbour Registers - Confidential Draft) Tj ET")
}

// pagesWithRunningLine: n pages sharing one content stream (the running
// line) and one resource dictionary (extra added to it).
func pagesWithRunningLine(n int, extra string) []byte {
	objs := [][]byte{
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"), nil,
		[]byte("<< /Font << /F1 4 0 R >> " + extra + " >>"),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
		runningLine(),
	}
	var kids strings.Builder
	for range n {
		fmt.Fprintf(&kids, "%d 0 R ", len(objs)+1)
		objs = append(objs, []byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources 3 0 R >>"))
	}
	objs[1] = fmt.Appendf(nil, "<< /Type /Pages /Kids [%s] /Count %d >>", kids.String(), n)
	return pdftest.Build(objs...)
}

// onePageListed: a page tree whose kids list the same page n times.
func onePageListed(n int) []byte {
	return pdftest.Build(
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		fmt.Appendf(nil, "<< /Type /Pages /Kids [%s] /Count %d >>", strings.Repeat("3 0 R ", n), n),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>"),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
		runningLine(),
	)
}

// TestDocumentsWhoseTextDisappearsAreFree: PDFs whose only text is a line
// that layout removes as a running header are a free 503 no_main_content
// through the binary, not a 200 with empty Markdown charged 2 credits.
func TestDocumentsWhoseTextDisappearsAreFree(t *testing.T) {
	deep := strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000)
	site := sites.New(t, "docs.test")
	for path, doc := range map[string][]byte{
		"/running.pdf": pagesWithRunningLine(5000, ""),
		"/listed.pdf":  onePageListed(100_000),
		"/nested.pdf":  pagesWithRunningLine(4, "/X "+deep),
	} {
		site.Handle(path, "application/pdf", string(doc))
	}
	s := startEnv(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0]},
		// Room for PDFium's first compile on a loaded machine.
		[]string{"TRAWL_DOCUMENT_TIMEOUT=3m"})
	token := tokenRE.FindString(s.stdout.String())
	for _, path := range []string{"/running.pdf", "/listed.pdf", "/nested.pdf"} {
		req, _ := http.NewRequest("GET", s.base+"/v1/content?url=http://docs.test"+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		t.Logf("%s: %d, charged %s: %.200s", path, res.StatusCode, res.Header.Get("X-Credits-Charged"), raw)
		if res.StatusCode != 503 || m["reason"] != "no_main_content" || res.Header.Get("X-Credits-Charged") != "0" {
			t.Errorf("%s = %d %.300s, charged %q; want a free 503 no_main_content", path, res.StatusCode, raw, res.Header.Get("X-Credits-Charged"))
		}
	}
	if code, cr := get(t, s.base+"/v1/credits", token); code != 200 || cr["balance"] != float64(90000) {
		t.Fatalf("credits after empty documents = %d %v, want 90000", code, cr)
	}
	// The documents were read in a PDF worker, the binary started again
	// below the node, which waits there for the next document.
	if runtime.GOOS == "linux" {
		if w := pdfWorkers(s.cmd.Process.Pid); len(w) != 1 {
			t.Errorf("PDF workers below the node: %v, want one idle worker", w)
		}
	}
}

// pdfWorkers are the processes below pid started as PDF workers (their
// environment names TRAWL_PDF_WORKER).
func pdfWorkers(pid int) []int {
	var out []int
	for _, c := range proctest.Children(pid) {
		env, err := os.ReadFile("/proc/" + strconv.Itoa(c) + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.HasPrefix(kv, []byte("TRAWL_PDF_WORKER=")) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// TestWarmPDFWorkerStartsWithTheServer: with TRAWL_DOCUMENT_WARM_WORKERS
// the server starts a loaded PDF worker before any request, the first PDF
// is read there, and it stays once the document is done.
func TestWarmPDFWorkerStartsWithTheServer(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the process tree from /proc")
	}
	site := sites.New(t, "docs.test")
	site.Handle("/short.pdf", "application/pdf", string(pdftest.Build(
		[]byte("<< /Type /Catalog /Pages 2 0 R >>"),
		[]byte("<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
		[]byte("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 4 0 R >> >> >>"),
		[]byte("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"),
		pdftest.Stream("BT /F1 12 Tf 72 700 Td (Tide tables for the harbour, read before the first request.) Tj ET"),
	)))
	s := startEnv(t, []string{"--data-dir", t.TempDir(), "--resolve", sites.ResolveFlags(site)[0]},
		[]string{"TRAWL_DOCUMENT_WARM_WORKERS=1", "TRAWL_DOCUMENT_TIMEOUT=3m"})
	token := tokenRE.FindString(s.stdout.String())
	var before []int
	for end := time.Now().Add(3 * time.Minute); len(before) != 1; time.Sleep(50 * time.Millisecond) {
		if before = pdfWorkers(s.cmd.Process.Pid); time.Now().After(end) {
			t.Fatalf("PDF workers below the node before any request: %v, want one", before)
		}
	}
	code, m := get(t, s.base+"/v1/content?url=http://docs.test/short.pdf", token)
	if code != 200 || !strings.Contains(fmt.Sprint(m["markdown"]), "Tide tables for the harbour") {
		t.Fatalf("content = %d %v", code, m)
	}
	if after := pdfWorkers(s.cmd.Process.Pid); len(after) != 1 || after[0] != before[0] {
		t.Fatalf("PDF workers after the document: %v, want the warm one %v", after, before)
	}
}
