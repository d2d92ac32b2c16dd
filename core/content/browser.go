package content

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Formats a caller may ask for. markdown and html are the Content object's
// own pair and always answered; the others add fields to it.
const (
	FormatMarkdown       = "markdown"
	FormatHTML           = "html"
	FormatLinks          = "links"
	FormatImages         = "images"
	FormatScreenshot     = "screenshot"
	FormatScreenshotFull = "screenshot_full"
)

// Limits of the page options, in one place for the rules and the docs.
const (
	MaxActions       = 50
	MaxWait          = 30 * time.Second // one wait step in milliseconds
	MaxSelectorChars = 500
	MaxTextChars     = 10000 // typed text and executed scripts
	MaxHeaders       = 20
	MaxHeaderChars   = 2048 // one header value
	MaxCookies       = 50
	MaxCookieChars   = 4096 // one cookie value
)

// ActionInput is one step as a caller writes it.
type ActionInput struct {
	Type         string `json:"type"`
	Milliseconds int    `json:"milliseconds,omitempty"`
	Selector     string `json:"selector,omitempty"`
	Text         string `json:"text,omitempty"`
	Key          string `json:"key,omitempty"`
	Direction    string `json:"direction,omitempty"`
	Script       string `json:"script,omitempty"`
}

// Options are a page call's browser options as the caller gave them.
type Options struct {
	Formats []string          `json:"formats,omitempty"`
	Actions []ActionInput     `json:"actions,omitempty"`
	Device  string            `json:"device,omitempty"`
	Locale  string            `json:"locale,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Cookies map[string]string `json:"cookies,omitempty"`
	Country string            `json:"country,omitempty"`
}

// Empty reports whether the options ask for nothing.
func (o Options) Empty() bool {
	return len(o.Formats) == 0 && len(o.Actions) == 0 && o.Device == "" && o.Locale == "" && len(o.Headers) == 0 && len(o.Cookies) == 0 && o.Country == ""
}

// Plan is Options checked: what the call asks of the fetcher or the browser.
type Plan struct {
	Links, Images bool
	Shot          ports.ShotKind
	Actions       []ports.Action
	Page          ports.PageOptions
}

// NeedsBrowser reports whether only a browser can do what the plan asks.
func (p Plan) NeedsBrowser() bool { return p.Shot != ports.ShotNone || len(p.Actions) > 0 }

var (
	localeRE  = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$`)
	countryRE = regexp.MustCompile(`^[A-Za-z]{2}$`)
	tokenRE   = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// refusedHeaders are set by the client itself, or would steer where the
// request goes or how it is framed.
var refusedHeaders = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true, "Keep-Alive": true,
	"Upgrade": true, "Te": true, "Trailer": true, "Expect": true, "Cookie": true, "Proxy-Authorization": true,
	"Proxy-Connection": true, "Accept-Encoding": true, "Forwarded": true, "X-Forwarded-For": true, "X-Forwarded-Host": true,
	"X-Real-Ip": true, "Origin": true, "Referer": true,
}

// CheckOptions is the rule for a page call's options: each fault is a 422
// naming its field (formats, actions[i].field, device, locale,
// headers.Name, cookies.name, country). countries lists the proxy pool's
// countries; a country outside it is refused.
func CheckOptions(o Options, countries []string) (Plan, error) {
	var fe failure.FieldErrors
	var p Plan
	for _, f := range o.Formats {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case FormatMarkdown, FormatHTML:
		case FormatLinks:
			p.Links = true
		case FormatImages:
			p.Images = true
		case FormatScreenshot:
			if p.Shot == ports.ShotFull {
				fe.Add("formats", "The formats may hold screenshot or screenshot_full, not both.")
			}
			p.Shot = ports.ShotViewport
		case FormatScreenshotFull:
			if p.Shot == ports.ShotViewport {
				fe.Add("formats", "The formats may hold screenshot or screenshot_full, not both.")
			}
			p.Shot = ports.ShotFull
		default:
			fe.Add("formats", "The formats must be among markdown, html, links, images, screenshot and screenshot_full.")
		}
	}
	if len(o.Actions) > MaxActions {
		fe.Add("actions", fmt.Sprintf("The actions may hold at most %d steps.", MaxActions))
	} else {
		for i, a := range o.Actions {
			act, ok := checkAction(&fe, i, a)
			if ok {
				p.Actions = append(p.Actions, act)
			}
		}
	}
	switch d := strings.ToLower(strings.TrimSpace(o.Device)); d {
	case "", "desktop":
	case "mobile":
		p.Page.Device = d
	default:
		fe.Add("device", "The device must be desktop or mobile.")
	}
	if l := strings.TrimSpace(o.Locale); l != "" {
		if !localeRE.MatchString(l) {
			fe.Add("locale", "The locale must be a language tag such as en-US or de.")
		} else {
			p.Page.Locale, p.Page.TimeZone = l, TimeZone(l)
		}
	}
	if len(o.Headers) > MaxHeaders {
		fe.Add("headers", fmt.Sprintf("The headers may hold at most %d entries.", MaxHeaders))
	} else {
		for name, v := range o.Headers {
			key := http.CanonicalHeaderKey(strings.TrimSpace(name))
			field := "headers." + name
			switch {
			case !tokenRE.MatchString(key):
				fe.Add(field, "A header name must be a token (letters, digits and -).")
			case refusedHeaders[key] || strings.HasPrefix(key, "Sec-") || strings.HasPrefix(key, "Proxy-"):
				fe.Add(field, fmt.Sprintf("The %s header cannot be set (cookies go in cookies).", key))
			case len(v) > MaxHeaderChars || strings.ContainsAny(v, "\r\n\x00"):
				fe.Add(field, fmt.Sprintf("A header value must be one line of at most %d characters.", MaxHeaderChars))
			default:
				if p.Page.Headers == nil {
					p.Page.Headers = map[string]string{}
				}
				p.Page.Headers[key] = v
			}
		}
	}
	if len(o.Cookies) > MaxCookies {
		fe.Add("cookies", fmt.Sprintf("The cookies may hold at most %d entries.", MaxCookies))
	} else {
		for name, v := range o.Cookies {
			field := "cookies." + name
			switch {
			case !tokenRE.MatchString(name):
				fe.Add(field, "A cookie name must be a token (letters, digits and -).")
			case len(v) > MaxCookieChars || strings.ContainsAny(v, ";,\r\n\x00\" \\"):
				fe.Add(field, fmt.Sprintf("A cookie value must be at most %d characters, without spaces, quotes, commas, semicolons or backslashes.", MaxCookieChars))
			default:
				p.Page.Cookies = append(p.Page.Cookies, ports.Cookie{Name: name, Value: v})
			}
		}
		sortCookies(p.Page.Cookies)
	}
	if c := strings.TrimSpace(o.Country); c != "" {
		c = strings.ToUpper(c)
		switch {
		case !countryRE.MatchString(c):
			fe.Add("country", "The country must be an ISO 3166-1 alpha-2 code such as US or DE.")
		case !contains(countries, c):
			if len(countries) == 0 {
				fe.Add("country", "The country cannot be chosen: this server has no proxies by country.")
			} else {
				fe.Add("country", fmt.Sprintf("The country must be one this server has proxies in: %s.", strings.Join(countries, ", ")))
			}
		default:
			p.Page.Country = c
		}
	}
	return p, fe.Err("content.CheckOptions")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func sortCookies(c []ports.Cookie) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].Name < c[j-1].Name; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// PressKeys are the named keys a press step may send.
var PressKeys = map[string]bool{
	"Enter": true, "Tab": true, "Escape": true, "Backspace": true, "Delete": true, "ArrowUp": true, "ArrowDown": true,
	"ArrowLeft": true, "ArrowRight": true, "Home": true, "End": true, "PageUp": true, "PageDown": true, "Space": true,
}

// scrollDirections are the directions of a scroll step.
var scrollDirections = map[string]bool{"up": true, "down": true, "bottom": true}

// checkAction is the rule for one step; its faults name actions[i].field.
func checkAction(fe *failure.FieldErrors, i int, a ActionInput) (ports.Action, bool) {
	at := func(f string) string { return fmt.Sprintf("actions[%d].%s", i, f) }
	ok := true
	add := func(field, msg string) { ok = false; fe.Add(field, msg) }
	act := ports.Action{Kind: ports.ActionKind(strings.ToLower(strings.TrimSpace(a.Type))), Selector: strings.TrimSpace(a.Selector)}
	if len(act.Selector) > MaxSelectorChars {
		add(at("selector"), fmt.Sprintf("The selector may be at most %d characters.", MaxSelectorChars))
	}
	needSelector := func() {
		if act.Selector == "" {
			add(at("selector"), fmt.Sprintf("A %s step needs a selector.", act.Kind))
		}
	}
	switch act.Kind {
	case ports.ActionWait:
		switch {
		case a.Milliseconds != 0 && act.Selector != "":
			add(at("milliseconds"), "A wait step takes milliseconds or a selector, not both.")
		case act.Selector == "" && (a.Milliseconds < 1 || a.Milliseconds > int(MaxWait/time.Millisecond)):
			add(at("milliseconds"), fmt.Sprintf("A wait step needs milliseconds from 1 to %d, or a selector.", MaxWait/time.Millisecond))
		}
		act.Milliseconds = a.Milliseconds
	case ports.ActionClick:
		needSelector()
	case ports.ActionType:
		needSelector()
		if a.Text == "" || len(a.Text) > MaxTextChars {
			add(at("text"), fmt.Sprintf("A type step needs text of 1 to %d characters.", MaxTextChars))
		}
		act.Text = a.Text
	case ports.ActionPress:
		if k := strings.TrimSpace(a.Key); !(len([]rune(k)) == 1 || PressKeys[k]) {
			add(at("key"), "A press step needs one character or a key among Enter, Tab, Escape, Backspace, Delete, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown and Space.")
		}
		act.Key = strings.TrimSpace(a.Key)
	case ports.ActionScroll:
		d := strings.ToLower(strings.TrimSpace(a.Direction))
		switch {
		case d != "" && act.Selector != "":
			add(at("direction"), "A scroll step takes a direction or a selector, not both.")
		case d == "" && act.Selector == "":
			add(at("direction"), "A scroll step needs a direction (up, down or bottom) or a selector.")
		case d != "" && !scrollDirections[d]:
			add(at("direction"), "The direction must be up, down or bottom.")
		}
		act.Direction = d
	case ports.ActionScreenshot:
	case ports.ActionExecute:
		if strings.TrimSpace(a.Script) == "" || len(a.Script) > MaxTextChars {
			add(at("script"), fmt.Sprintf("An execute step needs a script of 1 to %d characters.", MaxTextChars))
		}
		act.Script = a.Script
	default:
		add(at("type"), "The type must be one of wait, click, type, press, scroll, screenshot or execute.")
	}
	return act, ok
}

// ActionFailed words a renderer's action error for the caller, naming the
// step: a selector that never appears or a script that throws is a 422 on
// actions[i]; a budget that runs out is a free 503.
func ActionFailed(err error) error {
	const op = "content.actions"
	var ae *ports.ActionError
	if !errors.As(err, &ae) {
		return err
	}
	step := fmt.Sprintf("actions[%d]", ae.Index)
	switch ae.Failure {
	case ports.ActionNotFound:
		return failure.Invalidf(op, step, "%s: selector %q not found within %s", step, ae.Selector, ae.Within.Round(time.Second))
	case ports.ActionBadSelector:
		return failure.Invalidf(op, step+".selector", "%s: %q is not a CSS selector.", step, ae.Selector)
	case ports.ActionScriptFail:
		return failure.Invalidf(op, step, "%s: the script failed: %s", step, scriptError(ae.Err))
	}
	return failure.Unable(op, failure.ReasonRenderFailed, fmt.Sprintf("%s: the actions did not finish within their budget of %s.", step, ae.Within.Round(time.Second)), err)
}

// scriptError is the first line of a script's exception, at most 200
// characters: the caller's own script's words.
func scriptError(err error) string {
	if err == nil {
		return "it threw an exception"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// ScreenshotLink is a stored screenshot as the caller gets it.
type ScreenshotLink struct {
	URL       string    `json:"url"`
	Width     int       `json:"width"`
	Height    int       `json:"height"`
	ExpiresAt time.Time `json:"expires_at"`
}

// ActionOutput is what an action gave back, in the answer.
type ActionOutput struct {
	Index      int             `json:"index"`
	Type       string          `json:"type"`
	Value      json.RawMessage `json:"value,omitempty"`
	Screenshot *ScreenshotLink `json:"screenshot,omitempty"`
}

// ScreenshotTTL is how long a screenshot's link is valid by default.
const ScreenshotTTL = 24 * time.Hour

// WithScreenshots keeps screenshots in blobs, linked for ttl (default
// ScreenshotTTL); without it a screenshot format is refused.
func WithScreenshots(blobs ports.BlobStore, ttl time.Duration, now func() time.Time) Option {
	return func(s *Service) {
		if ttl <= 0 {
			ttl = ScreenshotTTL
		}
		if now == nil {
			now = time.Now
		}
		s.blobs, s.shotTTL, s.now = blobs, ttl, now
	}
}

// WithCountries names the countries of the outbound proxy pool, the ones a
// call's country may pick.
func WithCountries(countries []string) Option {
	return func(s *Service) { s.countries = append([]string(nil), countries...) }
}

// Countries lists the proxy pool's countries.
func (s *Service) Countries() []string { return append([]string(nil), s.countries...) }

// Plan checks a call's options against this server: the rule, then what
// the server offers (a browser, a blob store).
func (s *Service) Plan(o Options, mode RenderMode) (Plan, RenderMode, error) {
	p, err := CheckOptions(o, s.countries)
	if err != nil {
		return p, mode, err
	}
	if p.NeedsBrowser() {
		if mode == RenderNever {
			return p, mode, failure.Invalidf("content.Plan", "render", "Screenshots and actions need the browser: the render may not be never.")
		}
		if s.renderer == nil {
			return p, mode, failure.Unable("content.Plan", failure.ReasonNotOffered, "Screenshots and actions need a browser, and this server does not render pages in one.")
		}
		if p.Shot != ports.ShotNone || hasShotAction(p.Actions) {
			if s.blobs == nil {
				return p, mode, failure.Unable("content.Plan", failure.ReasonNotOffered, "This server does not keep screenshots.")
			}
		}
		mode = RenderAlways
	}
	return p, mode, nil
}

func hasShotAction(a []ports.Action) bool {
	for _, x := range a {
		if x.Kind == ports.ActionScreenshot {
			return true
		}
	}
	return false
}

// keepShot stores a PNG and links it.
func (s *Service) keepShot(ctx context.Context, shot *ports.Shot) (*ScreenshotLink, error) {
	if shot == nil {
		return nil, nil
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	key := "screenshots/" + s.now().UTC().Format("20060102") + "/" + hex.EncodeToString(id[:]) + ".png"
	if err := s.blobs.Put(ctx, key, shot.PNG, "image/png"); err != nil {
		return nil, failure.Unable("content.screenshot", failure.ReasonDeliveryFailed, "The screenshot could not be stored.", err)
	}
	u, err := s.blobs.URL(ctx, key, s.shotTTL)
	if err != nil {
		return nil, failure.Unable("content.screenshot", failure.ReasonDeliveryFailed, "The screenshot could not be stored.", err)
	}
	return &ScreenshotLink{URL: u, Width: shot.Width, Height: shot.Height, ExpiresAt: s.now().Add(s.shotTTL).UTC().Truncate(time.Second)}, nil
}

// finish adds what the plan asked for beyond the content: links, images,
// the screenshot and the actions' results.
func (s *Service) finish(ctx context.Context, page *Page, src *Source, plan Plan) error {
	if plan.Links || plan.Images {
		// One parse of the page for both.
		page.Links, page.Images = LinksAndImages(src.FinalURL, src.HTML, plan.Links, plan.Images)
	}
	var err error
	if page.Screenshot, err = s.keepShot(ctx, src.Shot); err != nil {
		return err
	}
	for _, r := range src.Actions {
		out := ActionOutput{Index: r.Index, Type: string(r.Kind)}
		if r.Kind == ports.ActionExecute {
			out.Value = json.RawMessage(r.Value)
			if len(out.Value) == 0 {
				out.Value = json.RawMessage("null")
			}
		}
		if out.Screenshot, err = s.keepShot(ctx, r.Shot); err != nil {
			return err
		}
		page.Actions = append(page.Actions, out)
	}
	return nil
}

// regionZones is the time zone of a locale's region: its capital's, or
// its most populous zone's.
var regionZones = map[string]string{
	"US": "America/New_York", "CA": "America/Toronto", "MX": "America/Mexico_City", "BR": "America/Sao_Paulo",
	"AR": "America/Argentina/Buenos_Aires", "CL": "America/Santiago", "CO": "America/Bogota", "PE": "America/Lima",
	"GB": "Europe/London", "IE": "Europe/Dublin", "FR": "Europe/Paris", "DE": "Europe/Berlin", "AT": "Europe/Vienna",
	"CH": "Europe/Zurich", "IT": "Europe/Rome", "ES": "Europe/Madrid", "PT": "Europe/Lisbon", "NL": "Europe/Amsterdam",
	"BE": "Europe/Brussels", "LU": "Europe/Luxembourg", "DK": "Europe/Copenhagen", "SE": "Europe/Stockholm",
	"NO": "Europe/Oslo", "FI": "Europe/Helsinki", "PL": "Europe/Warsaw", "CZ": "Europe/Prague", "SK": "Europe/Bratislava",
	"HU": "Europe/Budapest", "RO": "Europe/Bucharest", "BG": "Europe/Sofia", "GR": "Europe/Athens", "TR": "Europe/Istanbul",
	"UA": "Europe/Kyiv", "RU": "Europe/Moscow", "IL": "Asia/Jerusalem", "AE": "Asia/Dubai", "SA": "Asia/Riyadh",
	"EG": "Africa/Cairo", "ZA": "Africa/Johannesburg", "NG": "Africa/Lagos", "KE": "Africa/Nairobi", "IN": "Asia/Kolkata",
	"PK": "Asia/Karachi", "BD": "Asia/Dhaka", "TH": "Asia/Bangkok", "VN": "Asia/Ho_Chi_Minh", "ID": "Asia/Jakarta",
	"MY": "Asia/Kuala_Lumpur", "SG": "Asia/Singapore", "PH": "Asia/Manila", "CN": "Asia/Shanghai", "HK": "Asia/Hong_Kong",
	"TW": "Asia/Taipei", "KR": "Asia/Seoul", "JP": "Asia/Tokyo", "AU": "Australia/Sydney", "NZ": "Pacific/Auckland",
}

// languageRegions is the region a bare language tag is read as.
var languageRegions = map[string]string{
	"en": "US", "de": "DE", "fr": "FR", "es": "ES", "it": "IT", "pt": "PT", "nl": "NL", "da": "DK", "sv": "SE",
	"nb": "NO", "no": "NO", "fi": "FI", "pl": "PL", "cs": "CZ", "sk": "SK", "hu": "HU", "ro": "RO", "bg": "BG",
	"el": "GR", "tr": "TR", "uk": "UA", "ru": "RU", "he": "IL", "ar": "SA", "hi": "IN", "th": "TH", "vi": "VN",
	"id": "ID", "ms": "MY", "zh": "CN", "ja": "JP", "ko": "KR",
}

// TimeZone is the time zone a locale implies: its region's, else its
// language's usual region's; empty when neither is known.
func TimeZone(locale string) string {
	parts := strings.Split(locale, "-")
	for _, p := range parts[1:] {
		if len(p) == 2 {
			return regionZones[strings.ToUpper(p)]
		}
	}
	return regionZones[languageRegions[strings.ToLower(parts[0])]]
}

// RetryElsewhere is the rule for a block answer (a 401, 403, 429 or 451, a
// captcha or an access-denied page) read through a proxy chosen by
// country: it is tried once more through another proxy of the country.
func RetryElsewhere(o ports.PageOptions, err error) bool {
	if o.Country == "" || o.Retry > 0 || err == nil {
		return false
	}
	r := failure.ReasonOf(err)
	return r == failure.ReasonBlocked || r == failure.ReasonCaptcha
}

// ProxyRetries counts the block answers tried again through another proxy.
func (s *Service) ProxyRetries() int64 { return s.proxyRetries.Load() }
