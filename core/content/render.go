package content

import (
	"strings"

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
	Shell       bool  // the document is a script shell (ports.Extracted.Shell)
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
