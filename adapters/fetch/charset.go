package fetch

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/transform"
)

// prescanBytes is how much of a body the WHATWG prescan reads for <meta>.
const prescanBytes = 1024

// toUTF8 converts a text body to UTF-8 and names the charset it came from.
func toUTF8(body []byte, contentType string) ([]byte, string) {
	enc, name := sniffEncoding(body, contentType)
	if name == "utf-8" {
		return bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), "utf-8"
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return body, name
	}
	return out, name
}

// sniffEncoding follows the WHATWG encoding sniffing order: a byte order
// mark, then the charset of Content-Type, then a <meta> charset in the first
// 1,024 bytes. When none of them says anything, a body that is valid UTF-8
// is UTF-8 (a page whose <meta charset="utf-8"> comes after a long head is
// still UTF-8), and any other is windows-1252, what browsers assume of an
// unlabelled Western page.
func sniffEncoding(body []byte, contentType string) (encoding.Encoding, string) {
	if enc, name, certain := charset.DetermineEncoding(body, contentType); certain {
		return enc, name // a BOM, or a charset in Content-Type
	}
	if enc, name := metaCharset(body); enc != nil {
		return enc, name
	}
	if utf8.Valid(body) {
		return encoding.Nop, "utf-8"
	}
	return charmap.Windows1252, "windows-1252"
}

// metaCharset is the encoding a <meta charset> or <meta http-equiv=
// "Content-Type" content="...; charset=..."> declares in the first 1,024
// bytes, read with the HTML tokenizer (comments and scripts are skipped as
// a browser skips them); nil when there is none it knows.
func metaCharset(body []byte) (encoding.Encoding, string) {
	if len(body) > prescanBytes {
		body = body[:prescanBytes]
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, hasAttr := z.TagName()
			if string(tag) != "meta" || !hasAttr {
				continue
			}
			var label, content string
			httpEquiv := false
			for more := true; more; {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch string(k) {
				case "charset":
					if label == "" {
						label = string(v)
					}
				case "http-equiv":
					httpEquiv = strings.EqualFold(strings.TrimSpace(string(v)), "content-type")
				case "content":
					content = string(v)
				}
			}
			if label == "" && httpEquiv {
				if _, params, err := mime.ParseMediaType(content); err == nil {
					label = params["charset"]
				}
			}
			if label == "" {
				continue
			}
			enc, name := charset.Lookup(label)
			switch {
			case enc == nil:
				continue
			case strings.HasPrefix(name, "utf-16"): // a page that can declare itself in ASCII is not UTF-16
				return encoding.Nop, "utf-8"
			case name == "x-user-defined":
				return charmap.Windows1252, "windows-1252"
			}
			return enc, name
		}
	}
}
