package ports

import (
	"fmt"
	"time"
)

// PageOptions say how a page is loaded, over HTTP and in the browser alike.
type PageOptions struct {
	// Device is "desktop" (the default when empty) or "mobile": a phone's
	// viewport, touch and User-Agent.
	Device string
	// Locale is a BCP 47 tag ("de-DE"): Accept-Language, and in the
	// browser navigator.language and the time zone of its region.
	Locale string
	// Headers and Cookies go to the target's origin only, never to another
	// origin a redirect or the page leads to.
	Headers map[string]string
	Cookies []Cookie
	// TimeZone is the IANA zone of the locale's region ("Europe/Berlin");
	// empty: the browser's own.
	TimeZone string
	// Country is the ISO 3166-1 alpha-2 code of the outbound proxy to use;
	// empty: the default route.
	Country string
	// Retry is 1 on the retry of a blocked answer: it goes through
	// another proxy of the country.
	Retry int
}

// Cookie is a cookie the caller sends with the page's own requests.
type Cookie struct {
	Name  string
	Value string
}

// Empty reports whether the options ask for nothing.
func (o PageOptions) Empty() bool {
	return o.Device == "" && o.Locale == "" && len(o.Headers) == 0 && len(o.Cookies) == 0 && o.Country == ""
}

// ActionKind is what one step of a page script does.
type ActionKind string

const (
	ActionWait       ActionKind = "wait"       // Milliseconds, or until Selector is visible
	ActionClick      ActionKind = "click"      // Selector, then the network quiet
	ActionType       ActionKind = "type"       // Text into Selector
	ActionPress      ActionKind = "press"      // Key ("Enter", "Tab", "a")
	ActionScroll     ActionKind = "scroll"     // Direction up, down, bottom; or to Selector
	ActionScreenshot ActionKind = "screenshot" // the viewport at this step
	ActionExecute    ActionKind = "execute"    // Script; its return value is reported
)

// Action is one step run in the page before it is read.
type Action struct {
	Kind         ActionKind
	Milliseconds int
	Selector     string
	Text         string
	Key          string
	Direction    string
	Script       string
}

// ShotKind says which screenshot a render takes after its actions.
type ShotKind string

const (
	ShotNone     ShotKind = ""
	ShotViewport ShotKind = "viewport"
	ShotFull     ShotKind = "full" // the whole document, scrolled first so lazy content loads
)

// Shot is a PNG screenshot.
type Shot struct {
	PNG           []byte
	Width, Height int // CSS pixels
}

// ActionResult is what one action gave back: a screenshot's image or a
// script's return value (JSON); empty for the other kinds.
type ActionResult struct {
	Index int
	Kind  ActionKind
	Value []byte // execute: the JSON of the return value ("null" when none)
	Shot  *Shot  // screenshot
}

// ActionFailure says why an action could not be done.
type ActionFailure uint8

const (
	ActionNotFound    ActionFailure = iota + 1 // Selector never became visible within Within
	ActionScriptFail                           // the script threw or did not finish
	ActionBudget                               // the actions' time budget ran out
	ActionBadSelector                          // Selector is not a CSS selector
)

// ActionError is the typed error a renderer gives for an action that could
// not be done; core words it for the caller, naming the step.
type ActionError struct {
	Index    int
	Kind     ActionKind
	Failure  ActionFailure
	Selector string
	Within   time.Duration
	Err      error // the browser's own error, for logs
}

func (e *ActionError) Error() string {
	return fmt.Sprintf("action %d (%s) failed: %d %v", e.Index, e.Kind, e.Failure, e.Err)
}

func (e *ActionError) Unwrap() error { return e.Err }
