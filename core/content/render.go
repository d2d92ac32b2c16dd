package content

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/trawlhq/trawl/core/failure"
)

// RenderMode is the caller's choice of engine: auto steps up to a browser
// when the static page needs one, always renders, never does not.
type RenderMode string

const (
	RenderAuto   RenderMode = "auto"
	RenderAlways RenderMode = "always"
	RenderNever  RenderMode = "never"
)

// ParseRenderMode reads the render parameter; empty is auto.
func ParseRenderMode(s, field string) (RenderMode, error) {
	switch RenderMode(strings.ToLower(strings.TrimSpace(s))) {
	case "", RenderAuto:
		return RenderAuto, nil
	case RenderAlways:
		return RenderAlways, nil
	case RenderNever:
		return RenderNever, nil
	}
	return "", failure.Invalidf("content.ParseRenderMode", field, "The %s must be one of auto, always or never.", field)
}

// Engine says how a page was read.
type Engine string

const (
	EngineHTTP    Engine = "http"
	EngineBrowser Engine = "browser"
)

// StaticOutcome is what the static fetch found, the input of the step-up rule.
type StaticOutcome struct {
	StatusCode  int
	Markup      bool  // the answer is an HTML (or other markup) document
	Shell       bool  // the document is a script shell (see ScriptShell)
	ExtractErr  error // extraction of the static document failed (nil: not tried or succeeded)
	ExtractDone bool  // extraction was tried
}

// StepUp decides whether a page is read again in a browser: always when
// asked, never when asked not to, and in auto mode when a 2xx HTML answer
// is a script shell or has no main content to extract. Error statuses and
// non-documents are answers of their own: a browser would see them too.
func StepUp(mode RenderMode, o StaticOutcome) bool {
	switch mode {
	case RenderAlways:
		return true
	case RenderNever:
		return false
	}
	if o.StatusCode < 200 || o.StatusCode > 299 || !o.Markup {
		return false
	}
	if o.Shell {
		return true
	}
	return o.ExtractDone && o.ExtractErr != nil && failure.Is(o.ExtractErr, failure.Unavailable)
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
