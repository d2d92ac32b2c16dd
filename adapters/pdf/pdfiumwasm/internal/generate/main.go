// Command generate writes adapters/pdf/pdfiumwasm's module: go-pdfium's
// PDFium WebAssembly module (the version go.mod pins) with only the
// exports Trawl calls, and everything no kept export reaches removed, by
// Binaryen's wasm-metadce. Run by make generate:
//
//	go run ./adapters/pdf/pdfiumwasm/internal/generate -binaryen tools/binaryen/node_modules/.bin
//
// The output is a function of go-pdfium's module, the export lists below
// and Binaryen's version (pinned in tools/binaryen): the same inputs give
// the same bytes. The module written is checked before it is kept: wazero
// compiles it with the features Trawl enables, and it exports exactly the
// kept functions.
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// goPdfium is the Go module whose PDFium build is reduced.
const goPdfium = "github.com/klippa-app/go-pdfium"

// source is the module's file in go-pdfium.
const source = "internal/pdfium_wasm/pdfium.wasm"

// exports are the module's functions that are kept, with why.
var exports = []struct{ name, why string }{
	// go-pdfium's pool instantiates a worker with these.
	{"_initialize", "go-pdfium's pool: the module's start function"},
	{"malloc", "go-pdfium's pool and adapters/pdf"},
	{"free", "go-pdfium's pool and adapters/pdf"},
	{"FPDF_InitLibrary", "go-pdfium's pool, once per instance"},
	// adapters/pdf calls these directly (module.go, pdf.go).
	{"FPDF_LoadMemDocument64", "adapters/pdf"},
	{"FPDF_GetLastError", "adapters/pdf"},
	{"FPDF_CloseDocument", "adapters/pdf; go-pdfium's instance Close for documents it opened"},
	{"FPDF_GetPageCount", "adapters/pdf"},
	{"FPDF_GetPageSizeByIndex", "adapters/pdf"},
	{"FPDF_LoadPage", "adapters/pdf"},
	{"FPDF_ClosePage", "adapters/pdf"},
	{"FPDF_GetMetaText", "adapters/pdf"},
	{"FPDFCatalog_GetLanguage", "adapters/pdf"},
	{"FPDFPage_CountObjects", "adapters/pdf"},
	{"FPDFPage_GetObject", "adapters/pdf"},
	{"FPDFPageObj_GetType", "adapters/pdf"},
	{"FPDFText_LoadPage", "adapters/pdf"},
	{"FPDFText_ClosePage", "adapters/pdf"},
	{"FPDFText_CountChars", "adapters/pdf"},
	{"FPDFText_CountRects", "adapters/pdf"},
	{"FPDFText_GetRect", "adapters/pdf"},
	{"FPDFText_GetBoundedText", "adapters/pdf"},
	{"FPDFText_GetCharBox", "adapters/pdf"},
	{"FPDFText_GetCharIndexAtPos", "adapters/pdf"},
	{"FPDFText_GetCharOrigin", "adapters/pdf"},
	{"FPDFText_GetFontSize", "adapters/pdf"},
	{"FPDFText_GetUnicode", "adapters/pdf"},
	// go-pdfium's OpenDocument (from memory) and GetPageTextStructured,
	// the reference adapters/pdf's tests compare its text with.
	{"FPDF_LoadMemDocument", "go-pdfium's OpenDocument, in adapters/pdf's tests"},
	{"memset", "go-pdfium's request methods, in adapters/pdf's tests"},
	{"FPDFText_GetFontInfo", "go-pdfium's GetPageTextStructured, in adapters/pdf's tests"},
	{"FPDFText_GetFontWeight", "go-pdfium's GetPageTextStructured, in adapters/pdf's tests"},
	{"FPDFText_GetMatrix", "go-pdfium's GetPageTextStructured, in adapters/pdf's tests"},
}

// features are the WebAssembly features the module may use: wazero's
// CoreFeaturesV2 and exception handling, as Trawl's runtime enables them
// (PDFium's setjmp/longjmp are lowered to exception handling).
var features = []string{
	"--mvp-features",
	"--enable-sign-ext", "--enable-mutable-globals", "--enable-nontrapping-float-to-int",
	"--enable-bulk-memory", "--enable-multivalue", "--enable-reference-types", "--enable-simd",
	"--enable-exception-handling",
}

func main() {
	bin := flag.String("binaryen", "tools/binaryen/node_modules/.bin", "directory of Binaryen's programs")
	out := flag.String("out", "adapters/pdf/pdfiumwasm", "package directory written")
	flag.Parse()
	if err := run(*bin, *out); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

func run(bin, out string) error {
	mod, err := download()
	if err != nil {
		return err
	}
	in := filepath.Join(mod.Dir, filepath.FromSlash(source))
	orig, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	metadce := filepath.Join(bin, "wasm-metadce")
	v, err := exec.Command(metadce, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s: %w (make generate installs it: npm ci in tools/binaryen)", metadce, err)
	}
	version := strings.TrimSpace(string(v))

	tmp, err := os.MkdirTemp("", "trawl-pdfiumwasm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	graph, err := rootsGraph()
	if err != nil {
		return err
	}
	graphFile := filepath.Join(tmp, "graph.json")
	if err := os.WriteFile(graphFile, graph, 0o644); err != nil {
		return err
	}
	reduced := filepath.Join(tmp, "pdfium.wasm")
	args := append(slices.Clone(features), in, "--graph-file", graphFile, "-o", reduced)
	cmd := exec.Command(metadce, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr // stdout lists what was removed
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("wasm-metadce: %w\n%s", err, stderr.String())
	}
	wasm, err := os.ReadFile(reduced)
	if err != nil {
		return err
	}
	if err := check(wasm); err != nil {
		return fmt.Errorf("the reduced module: %w", err)
	}
	src, err := goSource(mod, orig, wasm, version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "pdfium.wasm"), wasm, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "module_gen.go"), src, 0o644); err != nil {
		return err
	}
	fmt.Printf("pdfiumwasm: %s %s, %d bytes -> %d bytes, %d exports kept\n", goPdfium, mod.Version, len(orig), len(wasm), len(exports))
	return nil
}

type module struct{ Version, Dir, Error string }

// download has the go command fetch (or find in its cache) the go-pdfium
// go.mod requires.
func download() (module, error) {
	var m module
	b, err := exec.Command("go", "mod", "download", "-json", goPdfium).Output()
	if err != nil {
		return m, fmt.Errorf("go mod download %s: %w", goPdfium, err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, err
	}
	if m.Error != "" || m.Dir == "" {
		return m, fmt.Errorf("go mod download %s: %s", goPdfium, m.Error)
	}
	return m, nil
}

// rootsGraph is wasm-metadce's graph: one root reaching the kept exports
// and the memory. Exports not in the graph are removed.
func rootsGraph() ([]byte, error) {
	type node struct {
		Name    string   `json:"name"`
		Root    bool     `json:"root,omitempty"`
		Reaches []string `json:"reaches,omitempty"`
		Export  string   `json:"export,omitempty"`
	}
	root := node{Name: "root", Root: true}
	var nodes []node
	for _, e := range append([]string{"memory"}, names()...) {
		root.Reaches = append(root.Reaches, "export:"+e)
		nodes = append(nodes, node{Name: "export:" + e, Export: e})
	}
	return json.MarshalIndent(append([]node{root}, nodes...), "", "  ")
}

func names() []string {
	var n []string
	for _, e := range exports {
		n = append(n, e.name)
	}
	return n
}

// check compiles the module as Trawl's runtime does and compares its
// exported functions with the kept ones.
func check(wasm []byte) error {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter().
		WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesExceptionHandling))
	defer r.Close(ctx)
	c, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return err
	}
	var got []string
	for name := range c.ExportedFunctions() {
		got = append(got, name)
	}
	want := names()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("exports %v, want %v", got, want)
	}
	if _, ok := c.ExportedMemories()["memory"]; !ok {
		return fmt.Errorf("no memory exported")
	}
	return nil
}

func goSource(mod module, orig, wasm []byte, version string) ([]byte, error) {
	var b bytes.Buffer
	sum := func(p []byte) string { s := sha256.Sum256(p); return hex.EncodeToString(s[:]) }
	fmt.Fprintf(&b, "// Code generated by adapters/pdf/pdfiumwasm/internal/generate. DO NOT EDIT.\n\npackage pdfiumwasm\n\n")
	fmt.Fprintf(&b, "// Source is the module reduced: go-pdfium's build of PDFium.\nconst Source = %q\n\n", goPdfium+"@"+mod.Version+" "+source)
	fmt.Fprintf(&b, "// SourceSHA256 is the SHA-256 of Source's bytes.\nconst SourceSHA256 = %q\n\n", sum(orig))
	fmt.Fprintf(&b, "// SHA256 is the SHA-256 of Module.\nconst SHA256 = %q\n\n", sum(wasm))
	fmt.Fprintf(&b, "// Binaryen is the wasm-metadce that reduced it.\nconst Binaryen = %q\n\n", version)
	fmt.Fprintf(&b, "// Features are wasm-metadce's feature flags: the features the module may use.\nvar Features = %#v\n\n", features)
	fmt.Fprintf(&b, "// Exports are the functions Module exports, and nothing else.\nvar Exports = []string{\n")
	for _, e := range exports {
		fmt.Fprintf(&b, "\t%q, // %s\n", e.name, e.why)
	}
	fmt.Fprintf(&b, "}\n")
	return format.Source(b.Bytes())
}
