// Package docx converts Word documents (Office Open XML, .docx) to the
// Content object. A DOCX is a ZIP archive of XML parts; they are read with
// archive/zip and a streaming encoding/xml decoder, with bounds on what a
// hostile archive can cost: the number of entries, the bytes a part
// inflates to (a ZIP bomb stops at the cap, whatever its headers claim),
// the XML nesting depth and the text kept.
package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/trawlhq/trawl/adapters/docmodel"
	"github.com/trawlhq/trawl/ports"
)

// Options bound a Converter.
type Options struct {
	MaxEntries   int   // entries in the archive; default 5,000
	MaxPartBytes int64 // bytes one XML part may inflate to; default 64 MiB
	MaxDepth     int   // XML element nesting; default 256
	MaxChars     int   // text kept; default 20 million characters
}

// Converter implements ports.DocumentConverter for DOCX.
type Converter struct{ opts Options }

var _ ports.DocumentConverter = (*Converter)(nil)

// New builds a converter.
func New(o Options) *Converter {
	if o.MaxEntries <= 0 {
		o.MaxEntries = 5000
	}
	if o.MaxPartBytes <= 0 {
		o.MaxPartBytes = 64 << 20
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 256
	}
	if o.MaxChars <= 0 {
		o.MaxChars = 20_000_000
	}
	return &Converter{opts: o}
}

// fail is the typed reason a DOCX could not be converted for.
func fail(reason ports.DocumentReason, limit int64, err error) error {
	return &ports.DocumentError{Reason: reason, Format: ports.DocumentDOCX, Limit: limit, Err: err}
}

var (
	errTooLarge = errors.New("part inflates past the cap")
	errTooDeep  = errors.New("xml nested past the cap")
)

// cfb is the signature of an OLE compound file: what an encrypted DOCX is
// stored in.
var cfb = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}

// Convert implements ports.DocumentConverter.
func (c *Converter) Convert(ctx context.Context, r ports.DocumentRequest) (ports.Extracted, error) {
	if bytes.HasPrefix(r.Body, cfb) {
		return ports.Extracted{}, fail(ports.DocumentEncrypted, 0, nil)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.Body), int64(len(r.Body)))
	if err != nil {
		return ports.Extracted{}, fail(ports.DocumentUnreadable, 0, err)
	}
	if len(zr.File) > c.opts.MaxEntries {
		return ports.Extracted{}, fail(ports.DocumentTooManyEntries, int64(c.opts.MaxEntries), nil)
	}
	d := &doc{c: c, ctx: ctx, files: map[string]*zip.File{}}
	for _, f := range zr.File {
		d.files[strings.TrimPrefix(f.Name, "/")] = f
	}
	if d.files["word/document.xml"] == nil {
		return ports.Extracted{}, fail(ports.DocumentUnreadable, 0, nil)
	}
	// A part that reached the cap is too large whatever the decoder made of
	// what it read: the XML decoder hands back the text it had before the
	// cap as if the part ended there.
	if err := d.read(); err != nil || d.overCap {
		switch {
		case ctx.Err() != nil:
			return ports.Extracted{}, fail(ports.DocumentTimeout, 0, err)
		case d.overCap || errors.Is(err, errTooLarge):
			return ports.Extracted{}, fail(ports.DocumentPartTooLarge, c.opts.MaxPartBytes, errTooLarge)
		case errors.Is(err, errTooDeep):
			return ports.Extracted{}, fail(ports.DocumentTooDeep, 0, err)
		}
		return ports.Extracted{}, fail(ports.DocumentDamaged, 0, err)
	}
	rd := docmodel.Render(d.blocks)
	if strings.TrimSpace(rd.Text) == "" {
		return ports.Extracted{}, fail(ports.DocumentNoText, 0, nil)
	}
	out := ports.Extracted{HTML: rd.HTML, Markdown: rd.Markdown, Text: rd.Text, Metadata: d.meta}
	if d.truncated {
		out.Warning = fmt.Sprintf("The document is longer than %d characters; only the first %d were converted.", c.opts.MaxChars, c.opts.MaxChars)
	}
	return out, nil
}

type doc struct {
	c         *Converter
	ctx       context.Context
	files     map[string]*zip.File
	styles    map[string]style // by style id
	numbering map[string]bool  // numId "/" ilvl -> ordered
	notes     []docmodel.Block
	blocks    []docmodel.Block
	meta      ports.Metadata
	chars     int
	truncated bool
	overCap   bool // a part reached MaxPartBytes
	titled    bool // the document uses a Title style: headings go one level down
}

type style struct {
	name    string
	outline int // 1-based heading level, 0 if none
	basedOn string
}

func (d *doc) read() error {
	if err := d.readMeta(); err != nil {
		return err
	}
	if err := d.readStyles(); err != nil {
		return err
	}
	if err := d.readNumbering(); err != nil {
		return err
	}
	if err := d.readFootnotes(); err != nil {
		return err
	}
	blocks, err := d.readBody("word/document.xml", "body")
	if err != nil {
		return err
	}
	d.blocks = append(blocks, d.notes...)
	return nil
}

// open returns a bounded reader of a part, or nil if it is absent.
func (d *doc) open(name string) (*xml.Decoder, func(), error) {
	f := d.files[name]
	if f == nil {
		return nil, func() {}, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, func() {}, err
	}
	lr := &capReader{r: rc, left: d.c.opts.MaxPartBytes, hit: &d.overCap}
	dec := xml.NewDecoder(lr)
	dec.Strict = false
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		if l := strings.ToLower(label); l == "utf-8" || l == "utf8" {
			return input, nil
		}
		return nil, fmt.Errorf("charset %q", label)
	}
	return dec, func() { rc.Close() }, nil
}

// capReader fails once more than left bytes are read, and says so in hit.
type capReader struct {
	r    io.Reader
	left int64
	hit  *bool
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		*c.hit = true
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// walker streams a part's elements with a depth bound.
type walker struct {
	dec   *xml.Decoder
	depth int
	max   int
	ctx   context.Context
	n     int
}

func (w *walker) next() (xml.Token, error) {
	t, err := w.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t.(type) {
	case xml.StartElement:
		w.depth++
		if w.depth > w.max {
			return nil, errTooDeep
		}
	case xml.EndElement:
		w.depth--
	}
	if w.n++; w.n%4096 == 0 && w.ctx.Err() != nil {
		return nil, w.ctx.Err()
	}
	return t, nil
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// readText gathers the character data of the current element.
func (w *walker) readText() (string, error) {
	var b strings.Builder
	depth := w.depth
	for {
		t, err := w.next()
		if err != nil {
			return "", err
		}
		switch v := t.(type) {
		case xml.CharData:
			b.Write(v)
		case xml.EndElement:
			if w.depth < depth {
				return b.String(), nil
			}
		}
	}
}

func (d *doc) walk(name string) (*walker, func(), error) {
	dec, closer, err := d.open(name)
	if err != nil || dec == nil {
		return nil, closer, err
	}
	return &walker{dec: dec, max: d.c.opts.MaxDepth, ctx: d.ctx}, closer, nil
}

func (d *doc) readMeta() error {
	w, closer, err := d.walk("docProps/core.xml")
	defer closer()
	if err != nil || w == nil {
		return err
	}
	for {
		t, err := w.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if se, ok := t.(xml.StartElement); ok {
			var dst *string
			switch se.Name.Local {
			case "title":
				dst = &d.meta.Title
			case "creator":
				dst = &d.meta.Author
			case "keywords":
				dst = &d.meta.Keywords
			case "description":
				dst = &d.meta.Description
			case "language":
				dst = &d.meta.Language
			}
			if dst != nil {
				s, err := w.readText()
				if err != nil {
					return err
				}
				*dst = strings.TrimSpace(s)
			}
		}
	}
	aw, closeApp, err := d.walk("docProps/app.xml")
	defer closeApp()
	if err != nil || aw == nil {
		return err
	}
	for {
		t, err := aw.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "Pages" {
			s, err := aw.readText()
			if err != nil {
				return err
			}
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n > 0 {
				d.meta.PageCount = n
			}
		}
	}
}

func (d *doc) readStyles() error {
	d.styles = map[string]style{}
	w, closer, err := d.walk("word/styles.xml")
	defer closer()
	if err != nil || w == nil {
		return err
	}
	var id string
	var cur style
	for {
		t, err := w.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch v := t.(type) {
		case xml.StartElement:
			switch v.Name.Local {
			case "style":
				id, cur = attr(v, "styleId"), style{}
			case "name":
				cur.name = strings.ToLower(attr(v, "val"))
			case "basedOn":
				cur.basedOn = attr(v, "val")
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(v, "val")); err == nil && n >= 0 && n < 9 {
					cur.outline = n + 1
				}
			case "lang":
				if d.meta.Language == "" && id == "" {
					d.meta.Language = attr(v, "val") // the document defaults
				}
			}
		case xml.EndElement:
			if v.Name.Local == "style" && id != "" {
				d.styles[id] = cur
				id = ""
			}
		}
	}
}

// headingLevel is a paragraph style's heading level: its outline level,
// or "heading N" in its name (or a style it is based on); a Title is 1.
func (d *doc) headingLevel(id string, outline int) int {
	if outline > 0 {
		return outline
	}
	for i := 0; i < 8 && id != ""; i++ {
		s, ok := d.styles[id]
		name := strings.ToLower(id)
		if ok {
			name = s.name
		}
		if ok && s.outline > 0 {
			return s.outline
		}
		if n, found := strings.CutPrefix(name, "heading"); found {
			if lv, err := strconv.Atoi(strings.TrimSpace(n)); err == nil && lv >= 1 && lv <= 9 {
				return lv
			}
		}
		if name == "title" {
			return -1
		}
		if !ok {
			return 0
		}
		id = s.basedOn
	}
	return 0
}

func (d *doc) readNumbering() error {
	d.numbering = map[string]bool{}
	w, closer, err := d.walk("word/numbering.xml")
	defer closer()
	if err != nil || w == nil {
		return err
	}
	abstract := map[string]map[string]bool{} // abstractNumId -> ilvl -> ordered
	var absID, lvl, numID string
	for {
		t, err := w.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if v, ok := t.(xml.StartElement); ok {
			switch v.Name.Local {
			case "abstractNum":
				absID = attr(v, "abstractNumId")
				abstract[absID] = map[string]bool{}
			case "lvl":
				lvl = attr(v, "ilvl")
			case "numFmt":
				if m := abstract[absID]; m != nil {
					f := attr(v, "val")
					m[lvl] = f != "bullet" && f != "none" && f != ""
				}
			case "num":
				numID = attr(v, "numId")
			case "abstractNumId":
				for l, ord := range abstract[attr(v, "val")] {
					d.numbering[numID+"/"+l] = ord
				}
			}
		}
	}
	return nil
}

func (d *doc) readFootnotes() error {
	blocks, err := d.readBody("word/footnotes.xml", "footnotes")
	d.notes = blocks
	return err
}

// para is a paragraph being read.
type para struct {
	style   string
	outline int
	numID   string
	ilvl    string
	text    strings.Builder
}

// readBody reads the paragraphs and tables of a part, in order. Footnotes
// of the separator kinds are left out; so are deleted runs and field codes.
func (d *doc) readBody(name, root string) ([]docmodel.Block, error) {
	w, closer, err := d.walk(name)
	defer closer()
	if err != nil || w == nil {
		return nil, err
	}
	var out []docmodel.Block
	var p *para
	var table [][]string // the outermost table
	tableDepth := 0
	var cell strings.Builder
	inText, skip := false, 0
	skipDepth := 0
	for {
		t, err := w.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch v := t.(type) {
		case xml.StartElement:
			if skip > 0 {
				continue
			}
			switch v.Name.Local {
			case "footnote", "endnote":
				if ty := attr(v, "type"); ty == "separator" || ty == "continuationSeparator" || ty == "continuationNotice" {
					skip, skipDepth = 1, w.depth
				}
			case "del", "instrText", "delText":
				skip, skipDepth = 1, w.depth
			case "tbl":
				tableDepth++
				if tableDepth == 1 {
					table = nil
				}
			case "tr":
				if tableDepth == 1 {
					table = append(table, nil)
				}
			case "tc":
				if tableDepth == 1 {
					cell.Reset()
				}
			case "p":
				p = &para{}
			case "pStyle":
				if p != nil {
					p.style = attr(v, "val")
				}
			case "outlineLvl":
				if n, err := strconv.Atoi(attr(v, "val")); err == nil && p != nil && n >= 0 && n < 9 {
					p.outline = n + 1
				}
			case "numId":
				if p != nil {
					p.numID = attr(v, "val")
				}
			case "ilvl":
				if p != nil {
					p.ilvl = attr(v, "val")
				}
			case "t":
				inText = true
			case "tab", "br", "cr":
				if p != nil {
					p.text.WriteByte(' ')
				}
			case "noBreakHyphen":
				if p != nil {
					p.text.WriteByte('-')
				}
			}
		case xml.CharData:
			if inText && skip == 0 && p != nil {
				if d.chars+len(v) > d.c.opts.MaxChars {
					// Keep what fits of this run, cut on a character.
					p.text.WriteString(strings.ToValidUTF8(string(v[:d.c.opts.MaxChars-d.chars]), ""))
					switch text := strings.TrimSpace(p.text.String()); {
					case tableDepth > 0 && len(table) > 0:
						cell.WriteString(text)
						table[len(table)-1] = append(table[len(table)-1], cell.String())
						out = append(out, docmodel.Block{Kind: docmodel.Table, Rows: table})
					case text != "" && tableDepth == 0:
						out = append(out, d.block(p, text))
					}
					d.truncated = true
					return out, nil
				}
				d.chars += len(v)
				p.text.Write(v)
			}
		case xml.EndElement:
			if skip > 0 {
				if w.depth < skipDepth {
					skip = 0
				}
				continue
			}
			switch v.Name.Local {
			case "t":
				inText = false
			case "p":
				if p == nil {
					continue
				}
				text := strings.TrimSpace(p.text.String())
				if tableDepth > 0 {
					if cell.Len() > 0 && text != "" {
						cell.WriteByte(' ')
					}
					cell.WriteString(text)
				} else if text != "" {
					out = append(out, d.block(p, text))
				}
				p = nil
			case "tc":
				if tableDepth == 1 && len(table) > 0 {
					table[len(table)-1] = append(table[len(table)-1], cell.String())
				}
			case "tbl":
				tableDepth--
				if tableDepth == 0 {
					out = append(out, docmodel.Block{Kind: docmodel.Table, Rows: table})
				}
			}
		}
	}
}

func (d *doc) block(p *para, text string) docmodel.Block {
	if p.numID != "" && p.numID != "0" {
		if p.ilvl == "" {
			p.ilvl = "0"
		}
		return docmodel.Block{Kind: docmodel.ListItem, Ordered: d.numbering[p.numID+"/"+p.ilvl], Text: text}
	}
	switch lv := d.headingLevel(p.style, p.outline); {
	case lv == -1:
		d.titled = true
		return docmodel.Block{Kind: docmodel.Heading, Level: 1, Text: text}
	case lv > 0:
		if d.titled {
			lv++
		}
		return docmodel.Block{Kind: docmodel.Heading, Level: min(lv, 6), Text: text}
	}
	return docmodel.Block{Kind: docmodel.Paragraph, Text: text}
}
