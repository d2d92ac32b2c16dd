package sitemapxml

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The <loc> scanner reads a sitemap as encoding/xml would for what a
// sitemap needs (element names, character data, CDATA, comments,
// processing instructions, the predefined entities and character
// references) without building a token per element: on a large sitemap
// encoding/xml was most of the time of a map. It streams from the reader
// with one buffer, so every cap of the caller holds. A file whose prolog
// declares another encoding than UTF-8, or has a document type, is left to
// encoding/xml (scannable says which).

var (
	declaredEncoding = regexp.MustCompile(`(?i)^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']`)
	errScanSyntax    = errors.New("sitemap syntax")
)

// scannable reports whether the start of body is one the scanner reads
// exactly as encoding/xml does.
func scannable(body *bufio.Reader) bool {
	head, _ := body.Peek(4096)
	if bytes.Contains(head, []byte("<!DOCTYPE")) || bytes.Contains(head, []byte("<!doctype")) {
		return false
	}
	if m := declaredEncoding.FindSubmatch(head); m != nil {
		enc := strings.ToLower(string(m[1]))
		return enc == "utf-8" || enc == "utf8" || enc == "us-ascii" || enc == "ascii"
	}
	return true
}

// scanLocs is parse's XML branch without encoding/xml: same kinds, same
// entries, same stops.
func scanLocs(body *bufio.Reader, maxURLs int, take func(kind string) bool) (kind string, locs []string, err error) {
	inLoc, parent := false, ""
	// loc is the decoded text of the open <loc>; raw its text not decoded
	// yet (a reference may be cut where a read ended).
	var loc, raw []byte
	flush := func() {
		loc = appendText(loc, raw)
		raw = raw[:0]
	}
	// handle applies one element event as parse does.
	start := func(name string) {
		switch {
		case kind == "" && (name == "urlset" || name == "sitemapindex"):
			kind = name
		case name == "url" || name == "sitemap":
			parent = name
		case name == "loc" && parent != "":
			inLoc = true
			loc, raw = loc[:0], raw[:0]
		}
	}
	// end returns false when the scan must stop.
	end := func(name string) bool {
		if name == "loc" && inLoc {
			inLoc = false
			flush()
			if u := cleanLoc(string(loc)); u != "" &&
				((kind == "urlset" && parent == "url") || (kind == "sitemapindex" && parent == "sitemap")) {
				if !take(kind) {
					return false
				}
				locs = append(locs, u)
				if len(locs) >= maxURLs {
					return false
				}
			}
		}
		if name == "url" || name == "sitemap" {
			parent = ""
		}
		return true
	}
	stop := func(err error) (string, []string, error) {
		if isCapError(err) {
			return "", nil, err
		}
		if kind != "" {
			return kind, locs, nil // keep what a truncated file gave
		}
		return "", nil, errors.New("not a sitemap")
	}
	for {
		// Character data up to the next tag.
		text, err := body.ReadSlice('<')
		if inLoc {
			n := len(text)
			if err == nil {
				n-- // the '<'
			}
			raw = append(raw, text[:n]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			if kind == "" {
				return "", nil, errors.New("not a sitemap")
			}
			return kind, locs, nil
		}
		if err != nil {
			return stop(err)
		}
		b, err := body.ReadByte()
		if err != nil {
			return stop(err)
		}
		switch b {
		case '!':
			if inLoc {
				flush()
			}
			if err := skipDeclaration(body, inLoc, &loc); err != nil {
				return stop(err)
			}
		case '?':
			if err := skipPast(body, "?>"); err != nil {
				return stop(err)
			}
		case '/':
			name, err := readName(body)
			if err != nil {
				return stop(err)
			}
			if err := skipPast(body, ">"); err != nil {
				return stop(err)
			}
			if !end(name) {
				return kind, locs, nil
			}
		default:
			_ = body.UnreadByte()
			name, err := readName(body)
			if err != nil {
				return stop(err)
			}
			closed, err := skipAttributes(body)
			if err != nil {
				return stop(err)
			}
			start(name)
			if closed && !end(name) {
				return kind, locs, nil
			}
		}
	}
}

// sitemapNames are the element names the reader acts on.
var sitemapNames = []string{"loc", "url", "sitemap", "urlset", "sitemapindex"}

// readName reads an element name and returns its local part (as
// encoding/xml splits it: at a single colon with text on both sides),
// lower-cased, when it is one of sitemapNames, and "-" for any other name.
func readName(r *bufio.Reader) (string, error) {
	var buf [32]byte
	name := buf[:0]
	for {
		b, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '/' || b == '>' {
			_ = r.UnreadByte()
			break
		}
		name = append(name, b) // bounded by the file's byte cap
	}
	if len(name) == 0 {
		return "", errScanSyntax
	}
	if bytes.Count(name, []byte(":")) == 1 {
		if i := bytes.IndexByte(name, ':'); i > 0 && i < len(name)-1 {
			name = name[i+1:]
		}
	}
	for _, known := range sitemapNames {
		if len(name) == len(known) && bytes.EqualFold(name, []byte(known)) {
			return known, nil
		}
	}
	return "-", nil
}

// skipAttributes reads to the end of a start tag and reports whether it
// closed itself (<loc/>). Quoted values may hold '>'.
func skipAttributes(r *bufio.Reader) (bool, error) {
	var quote, prev byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return false, err
		}
		switch {
		case quote != 0:
			if b == quote {
				quote = 0
			}
		case b == '"' || b == '\'':
			quote = b
		case b == '>':
			return prev == '/', nil
		}
		prev = b
	}
}

// skipPast reads up to and including end.
func skipPast(r *bufio.Reader, end string) error {
	last := end[len(end)-1]
	var tail []byte
	for {
		chunk, err := r.ReadSlice(last)
		if err != nil && err != bufio.ErrBufferFull {
			return err
		}
		tail = append(tail, chunk...)
		if err == nil && bytes.HasSuffix(tail, []byte(end)) {
			return nil
		}
		if len(tail) > len(end) {
			tail = tail[len(tail)-len(end):]
		}
	}
}

// skipDeclaration handles what follows "<!": a comment (skipped), a CDATA
// section (character data, kept inside a <loc>), or a declaration.
func skipDeclaration(r *bufio.Reader, inLoc bool, loc *[]byte) error {
	head, _ := r.Peek(7)
	switch {
	case bytes.HasPrefix(head, []byte("--")):
		_, _ = r.Discard(2)
		return skipPast(r, "-->")
	case bytes.Equal(head, []byte("[CDATA[")):
		_, _ = r.Discard(7)
		var data []byte
		for {
			chunk, err := r.ReadSlice('>')
			if err != nil && err != bufio.ErrBufferFull {
				return err
			}
			data = append(data, chunk...)
			if err == nil && bytes.HasSuffix(data, []byte("]]>")) {
				break
			}
		}
		if inLoc {
			*loc = append(*loc, normalizeNewlines(data[:len(data)-3])...)
		}
		return nil
	case bytes.HasPrefix(head, []byte("-")), bytes.HasPrefix(head, []byte("[")):
		return errScanSyntax
	default:
		return skipDirective(r)
	}
}

// skipDirective skips a declaration (<!ENTITY ...>) the way encoding/xml
// reads one: the byte after "<!" belongs to it whatever it is, quoted angle
// brackets do not nest, others do, and a comment inside is skipped whole.
func skipDirective(r *bufio.Reader) error {
	if _, err := r.ReadByte(); err != nil {
		return err
	}
	var quote byte
	depth := 0
	for {
		b, err := r.ReadByte()
		if err != nil {
			return err
		}
		if quote == 0 && b == '>' && depth == 0 {
			return nil
		}
	handle:
		switch {
		case b == quote:
			quote = 0
		case quote != 0:
		case b == '\'' || b == '"':
			quote = b
		case b == '>':
			depth--
		case b == '<':
			for i := 0; i < 3; i++ {
				if b, err = r.ReadByte(); err != nil {
					return err
				}
				if b != "!--"[i] {
					depth++
					goto handle
				}
			}
			if err := skipPast(r, "-->"); err != nil {
				return err
			}
		}
	}
}

// appendText appends character data with its references decoded and its
// line ends normalised, as encoding/xml gives it.
func appendText(dst, text []byte) []byte {
	for len(text) > 0 {
		i := bytes.IndexAny(text, "&\r")
		if i < 0 {
			return append(dst, text...)
		}
		dst = append(dst, text[:i]...)
		text = text[i:]
		if text[0] == '\r' {
			dst = append(dst, '\n')
			text = text[1:]
			if len(text) > 0 && text[0] == '\n' {
				text = text[1:]
			}
			continue
		}
		semi := bytes.IndexByte(text, ';')
		if semi < 0 {
			// A reference never closed: encoding/xml (not strict) keeps a
			// bare '&' as it is.
			return append(dst, text...)
		}
		ref := string(text[1:semi])
		if r, ok := entity(ref); ok {
			dst = utf8.AppendRune(dst, r)
		} else {
			dst = append(dst, text[:semi+1]...)
		}
		text = text[semi+1:]
	}
	return dst
}

func entity(ref string) (rune, bool) {
	switch ref {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	}
	if strings.HasPrefix(ref, "#x") {
		n, err := strconv.ParseUint(ref[2:], 16, 32)
		return rune(n), err == nil && utf8.ValidRune(rune(n))
	}
	if strings.HasPrefix(ref, "#") {
		n, err := strconv.ParseUint(ref[1:], 10, 32)
		return rune(n), err == nil && utf8.ValidRune(rune(n))
	}
	return 0, false
}

func normalizeNewlines(b []byte) []byte {
	if bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
}
