package pdf

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"unicode/utf16"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
)

// module calls PDFium's C API in one instance directly. go-pdfium's
// request methods make several calls into the module for one of theirs
// (each pointer argument is a malloc, a memset and a free), and its
// structured text reads every character of a page with three calls; in
// killable mode wazero starts a goroutine to watch the context on every
// call. Here a page with few rectangles (runs of text) is read a rectangle
// at a time, four calls each, and a dense one a character at a time
// without go-pdfium's extra calls (docs/performance-footprint.md).
type module struct {
	ctx  context.Context
	mem  api.Memory
	fns  map[string]api.Function
	mod  reflect.Value // go-pdfium's wrapper of the instance's module
	buf  [8]uint64     // parameters and result of a call
	args uint64        // scratch memory in the instance: four doubles
	err  error         // the first failed call; every later call fails too
	// perChar is the number of rectangles on a page past which its text
	// is read a character at a time (perCharRects).
	perChar int
	// index holds a page's characters when they are read one at a time;
	// its memory serves the document's next pages.
	index charIndex
}

var errModule = errors.New("pdf: PDFium's module is not reachable")

// openModule reaches the WebAssembly module of a go-pdfium instance (the
// instance holds it in its exported Module field; the pinned go-pdfium's
// tests in this package fail if that changes).
func openModule(ctx context.Context, inst pdfium.Pdfium) (*module, error) {
	impl := reflect.ValueOf(inst.GetImplementation())
	if impl.Kind() != reflect.Pointer || impl.Elem().Kind() != reflect.Struct {
		return nil, errModule
	}
	f := impl.Elem().FieldByName("Module")
	if !f.IsValid() || !f.CanInterface() || f.IsNil() {
		return nil, errModule
	}
	mod := f.Elem()
	get := mod.MethodByName("Memory")
	if !get.IsValid() || get.Type().NumIn() != 0 || get.Type().NumOut() != 1 {
		return nil, errModule
	}
	mem, ok := get.Call(nil)[0].Interface().(api.Memory)
	if !ok {
		return nil, errModule
	}
	m := &module{ctx: ctx, mem: mem, fns: map[string]api.Function{}, mod: mod, perChar: perCharRects}
	if m.fn("malloc") == nil || m.fn("free") == nil {
		return nil, errModule
	}
	m.args = m.call("malloc", 32)
	if m.err != nil || m.args == 0 {
		return nil, errModule
	}
	return m, nil
}

func (m *module) fn(name string) api.Function {
	if f, ok := m.fns[name]; ok {
		return f
	}
	get := m.mod.MethodByName("ExportedFunction")
	var f api.Function
	if get.IsValid() && get.Type().NumIn() == 1 && get.Type().NumOut() == 1 {
		r := get.Call([]reflect.Value{reflect.ValueOf(name)})[0]
		if !r.IsNil() {
			f, _ = r.Interface().(api.Function)
		}
	}
	m.fns[name] = f
	return f
}

// call runs an exported function and returns its result (0 when it has
// none). After a failure (the instance killed, a trap) it returns 0 and
// m.err holds the first error.
func (m *module) call(name string, params ...uint64) uint64 {
	if m.err != nil {
		return 0
	}
	return m.callFn(m.fn(name), name, params...)
}

// callFn is call with the function already looked up (a page's characters
// make hundreds of thousands of calls).
func (m *module) callFn(f api.Function, name string, params ...uint64) uint64 {
	if m.err != nil {
		return 0
	}
	if f == nil {
		m.err = errors.New("pdf: PDFium lacks " + name)
		return 0
	}
	copy(m.buf[:], params)
	if err := f.CallWithStack(m.ctx, m.buf[:]); err != nil {
		m.err = err
		return 0
	}
	return m.buf[0]
}

func (m *module) i32(name string, params ...uint64) int32 { return int32(m.call(name, params...)) }

func f64(v float64) uint64 { return math.Float64bits(v) }

// double reads the i-th double of the scratch memory.
func (m *module) double(i int) float64 {
	v, _ := m.mem.ReadFloat64Le(uint32(m.args) + uint32(8*i))
	return v
}

// doubles reads the first four doubles of the scratch memory at once.
func (m *module) doubles() (a, b, c, d float64) {
	buf, ok := m.mem.Read(uint32(m.args), 32)
	if !ok || len(buf) < 32 {
		return 0, 0, 0, 0
	}
	le := binary.LittleEndian
	return math.Float64frombits(le.Uint64(buf)), math.Float64frombits(le.Uint64(buf[8:])),
		math.Float64frombits(le.Uint64(buf[16:])), math.Float64frombits(le.Uint64(buf[24:]))
}

// utf16At decodes n UTF-16 code units at ptr, up to a NUL.
func (m *module) utf16At(ptr uint64, n int) string {
	if n <= 0 {
		return ""
	}
	b, ok := m.mem.Read(uint32(ptr), uint32(2*n))
	if !ok {
		return ""
	}
	u := make([]uint16, 0, n)
	for i := 0; i+1 < len(b); i += 2 {
		c := uint16(b[i]) | uint16(b[i+1])<<8
		if c == 0 {
			break
		}
		u = append(u, c)
	}
	return string(utf16.Decode(u))
}

// document is a PDF opened in the instance; its bytes stay in the
// instance's memory until it is closed.
type document struct {
	m      *module
	handle uint64
	data   uint64
}

// FPDF_GetLastError's code for a document that needs a password.
const errPassword = 4

// open loads body into the instance. password says the document needs one.
func (m *module) open(body []byte) (d *document, password bool, err error) {
	data := m.call("malloc", uint64(max(len(body), 1)))
	if m.err != nil || data == 0 {
		return nil, false, errors.Join(errors.New("pdf: no memory for the document"), m.err)
	}
	if !m.mem.Write(uint32(data), body) {
		m.call("free", data)
		return nil, false, errors.New("pdf: no memory for the document")
	}
	h := m.call("FPDF_LoadMemDocument64", data, uint64(len(body)), 0)
	if h == 0 {
		code := m.call("FPDF_GetLastError")
		m.call("free", data)
		if m.err != nil {
			return nil, false, m.err
		}
		return nil, code == errPassword, errors.New("pdf: the document could not be opened")
	}
	return &document{m: m, handle: h, data: data}, false, nil
}

func (d *document) close() {
	d.m.call("FPDF_CloseDocument", d.handle)
	d.m.call("free", d.data)
}

func (d *document) pageCount() int { return int(d.m.i32("FPDF_GetPageCount", d.handle)) }

// pageSize is the size of page i in points.
func (d *document) pageSize(i int) (w, h float64, ok bool) {
	m := d.m
	if m.i32("FPDF_GetPageSizeByIndex", d.handle, uint64(i), m.args, m.args+8) == 0 {
		return 0, 0, false
	}
	return m.double(0), m.double(1), m.err == nil
}

// text reads page i's text as PDFium places it: its rectangles (a run of
// one text object on one line), each with the text inside it and the font
// size of its first character.
func (d *document) text(i int) ([]run, error) {
	m := d.m
	pg := m.call("FPDF_LoadPage", d.handle, uint64(i))
	if pg == 0 {
		return nil, errors.Join(errors.New("pdf: page could not be loaded"), m.err)
	}
	defer m.call("FPDF_ClosePage", pg)
	tp := m.call("FPDFText_LoadPage", pg)
	if tp == 0 {
		return nil, errors.Join(errors.New("pdf: page text could not be loaded"), m.err)
	}
	defer m.call("FPDFText_ClosePage", tp)
	chars := m.i32("FPDFText_CountChars", tp)
	if chars <= 0 {
		return nil, m.err
	}
	n := m.i32("FPDFText_CountRects", tp, 0, uint64(chars))
	if n <= 0 {
		return nil, m.err
	}
	if int(n) > m.perChar {
		return m.textPerChar(tp, int(chars), int(n))
	}
	return m.textPerRect(tp, int(chars), int(n))
}

// perCharRects is the number of rectangles on a page past which its text is
// read a character at a time rather than a rectangle at a time: PDFium
// scans every character of the page for each rectangle's text (about 80 ns
// a character), a character read cost three calls into the module when
// the crossovers were measured (two now: its origin is read only where a
// line break is decided, which favours a character at a time more). In
// killable mode a call costs about 1 µs (wazero starts a goroutine for
// each) and they cross at about 45 rectangles; without the context checks
// (a worker process) a call costs about 0.2 µs, and reading a character
// at a time was faster on every corpus document, 1.5-4.6x on the reading
// of a page (down to the languages document's 22 rectangles a page); by
// the same costs they would cross at about 7 rectangles, and a page with
// a handful of rectangles costs little either way
// (docs/performance-footprint.md).
var perCharRects, perCharRectsUnkillable = 45, 4

// textPerRect asks PDFium for each rectangle's text: four calls a
// rectangle, and a scan of the page's characters inside the module for
// each.
func (m *module) textPerRect(tp uint64, chars, n int) ([]run, error) {
	// The text of a rectangle is at most the page's characters and a line
	// break between each.
	units := 2*chars + 2
	buf := m.call("malloc", uint64(2*units))
	if m.err != nil || buf == 0 {
		return nil, errors.Join(errors.New("pdf: no memory for the page text"), m.err)
	}
	defer m.call("free", buf)
	p := m.args
	runs := make([]run, 0, n)
	for r := 0; r < n; r++ {
		if m.i32("FPDFText_GetRect", tp, uint64(r), p, p+8, p+16, p+24) == 0 {
			continue
		}
		left, top, right, bot := m.doubles()
		got := m.i32("FPDFText_GetBoundedText", tp, f64(left), f64(top), f64(right), f64(bot), buf, uint64(units))
		text := m.utf16At(buf, int(got))
		// The font of the rectangle: that of a character inside it (all
		// characters of a rectangle share one text object, so one font).
		// The one at its left edge half-way up, else the one nearest its
		// middle.
		midY := (top + bot) / 2
		c := m.i32("FPDFText_GetCharIndexAtPos", tp, f64(math.Nextafter(float64(float32(left)), math.Inf(1))), f64(midY), 0, 0)
		if c < 0 {
			c = m.i32("FPDFText_GetCharIndexAtPos", tp, f64((left+right)/2), f64(midY), f64(right-left), f64(top-bot))
		}
		runs = append(runs, run{Text: text, Left: left, Right: right, Top: top, Bot: bot, Size: m.fontSize(tp, c)})
	}
	return runs, m.err
}

// textPerChar reads every character's box and code point, and finds each
// rectangle's text and first character on this side. A character's origin
// is read only where the text of a rectangle needs it (whether a line
// break comes before the character): for a few characters of each
// rectangle rather than all of them.
func (m *module) textPerChar(tp uint64, chars, n int) ([]run, error) {
	const (
		getCharBox    = "FPDFText_GetCharBox"
		getUnicode    = "FPDFText_GetUnicode"
		getCharOrigin = "FPDFText_GetCharOrigin"
		getRect       = "FPDFText_GetRect"
	)
	box, uni, orig, rect := m.fn(getCharBox), m.fn(getUnicode), m.fn(getCharOrigin), m.fn(getRect)
	p := m.args
	ix := &m.index
	cs := ix.reset(chars)
	for i := 0; i < chars && m.err == nil; i++ {
		m.callFn(box, getCharBox, tp, uint64(i), p, p+8, p+16, p+24)
		left, right, bot, top := m.doubles()
		u := m.callFn(uni, getUnicode, tp, uint64(i))
		cs = append(cs, pdfChar{Left: float32(left), Bottom: float32(bot), Right: float32(right), Top: float32(top),
			Unicode: rune(uint32(u))})
	}
	rects := make([]pdfRect, 0, n)
	for r := 0; r < n && m.err == nil; r++ {
		m.callFn(rect, getRect, tp, uint64(r), p, p+8, p+16, p+24)
		left, top, right, bot := m.doubles()
		rects = append(rects, pdfRect{Left: float32(left), Top: float32(top), Right: float32(right), Bottom: float32(bot)})
	}
	if m.err != nil {
		return nil, m.err
	}
	// A large page's index is not kept for the next pages.
	defer func() {
		if ix.large() {
			m.index = charIndex{}
		}
	}()
	if err := ix.build(cs, func(i int) float32 {
		m.callFn(orig, getCharOrigin, tp, uint64(i), p, p+8)
		return float32(m.double(1))
	}); err != nil {
		ix.origin = nil
		return nil, err
	}
	first := ix.firstChars(rects)
	runs := make([]run, 0, n)
	for i, r := range rects {
		runs = append(runs, run{Text: ix.textIn(r.Left, r.Top, r.Right, r.Bottom),
			Left: float64(r.Left), Right: float64(r.Right), Top: float64(r.Top), Bot: float64(r.Bottom),
			Size: m.fontSize(tp, int32(first[i]))})
	}
	ix.origin = nil
	return runs, m.err
}

// fontSize is the size of character c's font, 0 for no character.
func (m *module) fontSize(tp uint64, c int32) float64 {
	if c < 0 {
		return 0
	}
	return math.Float64frombits(m.call("FPDFText_GetFontSize", tp, uint64(uint32(c))))
}

// utf16Out calls a PDFium function that writes UTF-16 text into a buffer
// and returns its length in bytes, the terminating NUL included: once
// for the length, once for the text.
func (m *module) utf16Out(name string, params ...uint64) string {
	n := m.call(name, append(params, 0, 0)...)
	if m.err != nil || n <= 2 || n > 1<<20 {
		return ""
	}
	buf := m.call("malloc", n)
	if m.err != nil || buf == 0 {
		return ""
	}
	defer m.call("free", buf)
	m.call(name, append(params, buf, n)...)
	return m.utf16At(buf, int(n/2))
}

// metaText is an entry of the document information dictionary.
func (d *document) metaText(tag string) string {
	m := d.m
	b := append([]byte(tag), 0)
	p := m.call("malloc", uint64(len(b)))
	if m.err != nil || p == 0 {
		return ""
	}
	defer m.call("free", p)
	if !m.mem.Write(uint32(p), b) {
		return ""
	}
	return m.utf16Out("FPDF_GetMetaText", d.handle, p)
}

// language is the catalog's declared language.
func (d *document) language() string { return d.m.utf16Out("FPDFCatalog_GetLanguage", d.handle) }

// FPDFPageObj_GetType's code for an image.
const pageObjImage = 3

// hasImages: whether one of the first pages shows an image (a scan).
func (d *document) hasImages(pages int) bool {
	m := d.m
	for i := 0; i < pages && m.err == nil; i++ {
		pg := m.call("FPDF_LoadPage", d.handle, uint64(i))
		if pg == 0 {
			continue
		}
		n := int(m.i32("FPDFPage_CountObjects", pg))
		found := false
		for j := 0; j < n && j < 1000 && !found; j++ {
			o := m.call("FPDFPage_GetObject", pg, uint64(j))
			if o == 0 {
				break
			}
			found = m.i32("FPDFPageObj_GetType", o) == pageObjImage
		}
		m.call("FPDF_ClosePage", pg)
		if found {
			return true
		}
	}
	return false
}
