package pdfiumwasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// The module is the one generated from the go-pdfium that go.mod pins.
func TestGeneratedFromThePinnedModule(t *testing.T) {
	sum := sha256.Sum256(Module)
	if hex.EncodeToString(sum[:]) != SHA256 {
		t.Fatalf("pdfium.wasm is not the generated one: run make generate")
	}
	gomod, err := os.ReadFile(filepath.Join("..", "..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(github\.com/klippa-app/go-pdfium) (v\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatal("go-pdfium not in go.mod")
	}
	if pinned := string(m[1]) + "@" + string(m[2]) + " "; !strings.HasPrefix(Source, pinned) {
		t.Fatalf("generated from %s, go.mod pins %s: run make generate", Source, m[2])
	}
}

// pdfCall matches a PDFium function's name in adapters/pdf's source: its
// calls into the module (module.go's m.call).
var pdfCall = regexp.MustCompile(`"((?:FPDF|FORM_|FPDFText_|FPDFPage|FPDFCatalog_)[A-Za-z0-9_]*|malloc|free)"`)

// Every PDFium function adapters/pdf names is kept.
func TestKeepsWhatTrawlCalls(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("adapters/pdf's source: %v", err)
	}
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pdfCall.FindAllSubmatch(b, -1) {
			seen++
			if name := string(m[1]); !slices.Contains(Exports, name) {
				t.Errorf("%s calls %s, which the module does not export: add it to internal/generate and run make generate", filepath.Base(f), name)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("only %d calls found in adapters/pdf: the pattern no longer matches its source", seen)
	}
	for _, name := range []string{"_initialize", "malloc", "free", "FPDF_InitLibrary"} {
		if !slices.Contains(Exports, name) {
			t.Errorf("go-pdfium's pool needs %s", name)
		}
	}
}

// runtimeConfig enables what Trawl's runtime enables. It is wazero's
// interpreter: it validates the module as the compiler does, in a fraction
// of the time (the compiled code runs in adapters/pdf's tests).
func runtimeConfig() wazero.RuntimeConfig {
	return wazero.NewRuntimeConfigInterpreter().
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling).
		WithCloseOnContextDone(false)
}

// The module is valid with the features Trawl enables and exports
// Exports, nothing more; go-pdfium's pool starts an instance of it, which reads a PDF's
// text through the functions adapters/pdf calls.
func TestModuleReadsAPDF(t *testing.T) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, runtimeConfig())
	defer r.Close(ctx)
	c, err := r.CompileModule(ctx, Module)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for name := range c.ExportedFunctions() {
		got = append(got, name)
	}
	want := slices.Clone(Exports)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("exports %v, want %v", got, want)
	}

	pool, err := webassembly.InitWithWASM(webassembly.Config{
		WASM: Module, MaxIdle: 1, MaxTotal: 1, RuntimeConfig: runtimeConfig(),
		FSConfig: wazero.NewFSConfig(), Stdout: io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	inst, err := pool.GetInstance(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	mod := reflectModule(t, inst.GetImplementation())
	call := func(name string, params ...uint64) uint64 {
		t.Helper()
		f := mod.ExportedFunction(name)
		if f == nil {
			t.Fatalf("no %s", name)
		}
		res, err := f.Call(ctx, params...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res) == 0 {
			return 0
		}
		return res[0]
	}
	body, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "documents", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	data := call("malloc", uint64(len(body)))
	if !mod.Memory().Write(uint32(data), body) {
		t.Fatal("document not written")
	}
	doc := call("FPDF_LoadMemDocument64", data, uint64(len(body)), 0)
	if doc == 0 {
		t.Fatalf("not loaded: error %d", call("FPDF_GetLastError"))
	}
	if n := call("FPDF_GetPageCount", doc); n < 1 {
		t.Fatalf("%d pages", n)
	}
	page := call("FPDF_LoadPage", doc, 0)
	text := call("FPDFText_LoadPage", page)
	n := int(call("FPDFText_CountChars", text))
	var s strings.Builder
	for i := range n {
		s.WriteRune(rune(call("FPDFText_GetUnicode", text, uint64(i))))
	}
	call("FPDFText_ClosePage", text)
	call("FPDF_ClosePage", page)
	call("FPDF_CloseDocument", doc)
	call("free", data)
	if !strings.Contains(s.String(), "Trawl fetches public web pages") {
		t.Fatalf("page 1's text: %q", s.String())
	}
}

// instanceModule is the instance's module, reached as adapters/pdf reaches
// it: go-pdfium's implementation holds it in its exported Module field.
type instanceModule struct{ v reflect.Value }

func reflectModule(t *testing.T, impl any) instanceModule {
	t.Helper()
	v := reflect.ValueOf(impl)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		t.Fatalf("go-pdfium's implementation is a %T", impl)
	}
	f := v.Elem().FieldByName("Module")
	if !f.IsValid() || f.IsNil() {
		t.Fatal("go-pdfium's implementation has no Module")
	}
	return instanceModule{f.Elem()}
}

func (m instanceModule) Memory() api.Memory {
	return m.v.MethodByName("Memory").Call(nil)[0].Interface().(api.Memory)
}

func (m instanceModule) ExportedFunction(name string) api.Function {
	r := m.v.MethodByName("ExportedFunction").Call([]reflect.Value{reflect.ValueOf(name)})[0]
	if r.IsNil() {
		return nil
	}
	f, _ := r.Interface().(api.Function)
	return f
}
