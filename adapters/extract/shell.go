package extract

import (
	"bytes"
	"context"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/ports"
)

// Extract implements ports.Extractor: the main content of a page, and
// whether the static page is a script shell, which a browser reads better
// (the step-up rule, content.StepUp, decides whether one does). Like a
// block page, a shell is a verdict on the page, read here once: when asked
// for alone, or when the extraction failed, the only times an answer
// depends on it; a page that extracted is not read again.
func (e *Extractor) Extract(ctx context.Context, r ports.ExtractRequest) (ports.Extracted, error) {
	if r.ShellOnly {
		return ports.Extracted{Shell: ScriptShell(r.HTML)}, nil
	}
	ex, err := e.extract(ctx, r)
	if err != nil {
		ex.Shell = ScriptShell(r.HTML)
	}
	return ex, err
}

// frameworkRoots are the mount points client-side frameworks render into.
var frameworkRoots = map[string]bool{"root": true, "app": true, "__next": true, "__nuxt": true, "___gatsby": true, "svelte": true, "q-app": true, "main-app": true}

// shellMaxText is the most visible text a shell can show (a <noscript>
// asking for JavaScript): a page past it is not one, whatever follows.
const shellMaxText = 500

// ScriptShell reports whether a static HTML document is a shell its scripts
// fill in: a framework root element with no text, a <noscript> asking for
// JavaScript, or almost no text but script bundles. It reads the document
// only until it shows shellMaxText characters of text: every page with
// content stops there, early in its body.
func ScriptShell(doc []byte) bool {
	z := html.NewTokenizer(bytes.NewReader(doc))
	var (
		text          int  // visible characters outside script, style, noscript, template
		scripts       int  // external scripts and module scripts
		noscriptAsks  bool // <noscript> mentions JavaScript
		emptyRoot     bool // a framework root element with nothing inside it
		skip          int  // depth inside script/style/template
		inNoscript    bool
		rootDepth     = -1
		depth         int
		rootText      int
		noscriptWords strings.Builder
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if rootDepth >= 0 && rootText == 0 {
				emptyRoot = true
			}
			asks := strings.Contains(strings.ToLower(noscriptWords.String()), "javascript")
			noscriptAsks = noscriptAsks || asks
			switch {
			case emptyRoot && text < 200:
				return true
			case noscriptAsks && text < shellMaxText:
				return true
			case scripts > 0 && text < 100:
				return true
			}
			return false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			var id, src, typ string
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "id":
					id = string(v)
				case "src":
					src = string(v)
				case "type":
					typ = string(v)
				case "data-reactroot", "ng-version", "data-v-app", "data-server-rendered":
					id = "root"
				}
			}
			switch a {
			case atom.Script:
				if src != "" || typ == "module" {
					scripts++
				}
				if tt == html.StartTagToken {
					skip++
				}
				continue
			case atom.Style, atom.Template:
				if tt == html.StartTagToken {
					skip++
				}
				continue
			case atom.Noscript:
				inNoscript = tt == html.StartTagToken
				continue
			}
			if tt == html.SelfClosingTagToken || isVoid(a) {
				continue
			}
			depth++
			if rootDepth < 0 && frameworkRoots[id] || rootDepth < 0 && string(name) == "app-root" {
				rootDepth, rootText = depth, 0
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Template:
				if skip > 0 {
					skip--
				}
				continue
			case atom.Noscript:
				inNoscript = false
				continue
			}
			if rootDepth >= 0 && depth == rootDepth {
				if rootText == 0 {
					emptyRoot = true
				}
				rootDepth = -2 // decided: only the first root counts
			}
			depth--
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := bytes.TrimSpace(z.Text())
			switch {
			case len(t) == 0:
			case inNoscript:
				noscriptWords.Write(t)
				noscriptWords.WriteByte(' ')
			default:
				text += len(t)
				if rootDepth >= 0 {
					rootText += len(t)
				}
				if text >= shellMaxText {
					return false // no rule calls a page with this much text a shell
				}
			}
		}
	}
}

func isVoid(a atom.Atom) bool {
	switch a {
	case atom.Area, atom.Base, atom.Br, atom.Col, atom.Embed, atom.Hr, atom.Img, atom.Input, atom.Link, atom.Meta, atom.Source, atom.Track, atom.Wbr:
		return true
	}
	return false
}
