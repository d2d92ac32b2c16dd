// Package bulk holds the bulk content use case: accepting a batch of up to
// 100 URLs (or a sitemap's), holding its largest cost, processing it as a
// durable job that survives crashes without charging a URL twice, and
// delivering the results by signed webhook and by email with a ZIP.
package bulk

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// Limits of spec 4.3 and 8.
const (
	MaxURLs       = 100
	SyncThreshold = 10
	MaxLongURL    = 500
	CostPerURL    = 2
)

// Request is a bulk request as the caller sent it.
type Request struct {
	URLs        []string
	Sitemap     string
	Email       bool
	CallbackURL string
	Sync        bool
	// Render is how the pages are read: auto (default), always or never.
	Render string
	// TraceParent is the W3C traceparent of the submitting request, kept
	// with the job (empty: none).
	TraceParent string
	// MaxAge (seconds) and NoStore are the page cache's request for the
	// job's pages (max_age, store: false).
	MaxAge  int64
	NoStore bool
	// Changes compares each page with the account's previous snapshot of
	// it under Tag (changes=true).
	Changes bool
	Tag     string
	// Options are each page's formats, actions and page options (device,
	// locale, headers, cookies, country), as a content call takes them.
	Options content.Options
}

// Checked is a validated request: the URLs to queue (when given directly).
type Checked struct {
	URLs        []string
	Index       []int // each URL's position in the request, for urls.<i>
	Source      ports.URLSource
	Sitemap     string
	CallbackURL string
	Render      content.RenderMode
	MaxAge      int64 // seconds
	Tag         string
}

// Validate checks everything that needs no network: the URL list, the
// sitemap's form, the delivery methods and the callback URL's form. Every
// invalid URL is named (urls.3).
func Validate(r Request) (Checked, error) {
	var fe failure.FieldErrors
	var c Checked
	switch {
	case len(r.URLs) > 0:
		c.Source = ports.SourceURLs
		if len(r.URLs) > MaxURLs {
			fe.Add("urls", fmt.Sprintf("The urls may not have more than %d items.", MaxURLs))
			break
		}
		seen := map[string]bool{}
		for i, raw := range r.URLs {
			u, err := weburl.Parse(raw, weburl.Rules{Field: "urls." + strconv.Itoa(i)})
			if err != nil {
				e, _ := failure.As(err)
				for f, msgs := range e.Fields {
					for _, m := range msgs {
						fe.Add(f, m)
					}
				}
				continue
			}
			if k := weburl.DedupKey(u.String()); !seen[k] {
				seen[k] = true
				c.URLs = append(c.URLs, u.String())
				c.Index = append(c.Index, i)
			}
		}
	case strings.TrimSpace(r.Sitemap) != "":
		c.Source = ports.SourceSitemap
		u, err := weburl.Parse(r.Sitemap, weburl.Rules{Field: "sitemap", MaxLen: MaxLongURL})
		if err != nil {
			e, _ := failure.As(err)
			for _, m := range e.Fields["sitemap"] {
				fe.Add("sitemap", m)
			}
		} else {
			c.Sitemap = u.String()
		}
	default:
		fe.Add("urls", "The urls field is required when sitemap is not present.")
	}
	if mode, err := content.ParseRenderMode(r.Render, "render"); err != nil {
		e, _ := failure.As(err)
		for _, m := range e.Fields["render"] {
			fe.Add("render", m)
		}
	} else {
		c.Render = mode
	}
	if d, err := cache.ParseMaxAge(r.MaxAge, cache.FieldMaxAge); err != nil {
		fe.Add(cache.FieldMaxAge, failure.Public(err, ""))
	} else {
		c.MaxAge = int64(d / time.Second)
	}
	if tag, err := changes.ParseTag(r.Tag, "tag"); err != nil {
		fe.Add("tag", failure.Public(err, ""))
	} else {
		c.Tag = tag
	}
	cb := strings.TrimSpace(r.CallbackURL)
	if !r.Email && cb == "" {
		fe.Add("callback_url", "At least one delivery method is required: set email to true or give a callback_url.")
	}
	if cb != "" {
		u, err := ParseCallback(cb)
		if err != nil {
			e, _ := failure.As(err)
			for _, m := range e.Fields["callback_url"] {
				fe.Add("callback_url", m)
			}
		} else {
			c.CallbackURL = u
		}
	}
	return c, fe.Err("bulk.Validate")
}

// ParseCallback checks a webhook URL: http or https, at most 500
// characters, no credentials, not a local name, a raw IP only when public.
// Any port is allowed (receivers often listen on one of their own); the
// address guard still refuses non-public hosts when the webhook is sent.
func ParseCallback(raw string) (string, error) {
	field := "callback_url"
	fail := func(m string) error { return failure.Invalidf("bulk.ParseCallback", field, "%s", m) }
	if len([]rune(raw)) > MaxLongURL {
		return "", fail(fmt.Sprintf("The callback url may not be greater than %d characters.", MaxLongURL))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fail("The callback url must be a valid http or https URL.")
	}
	if u.User != nil {
		return "", fail("The callback url must not contain credentials.")
	}
	host := u.Hostname()
	if weburl.IsLocalName(host) {
		return "", fail(fmt.Sprintf(weburl.MsgNonPublic, "callback url"))
	}
	if weburl.IsRawIP(host) {
		if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err != nil || !weburl.IsPublicIP(ip) {
			return "", fail(fmt.Sprintf(weburl.MsgNonPublic, "callback url"))
		}
	}
	u.Fragment = ""
	return u.String(), nil
}

// ArchivePaths maps a page URL to its files in the ZIP, keeping the
// directory structure of the URL's path: https://example.com/blog/post ->
// html/example.com/blog/post.html and markdown/example.com/blog/post.md; "/"
// -> index; a query becomes part of the name; nothing can climb out of the
// archive's directories.
func ArchivePaths(pageURL string) (htmlPath, mdPath string) {
	u, err := url.Parse(pageURL)
	host := "page"
	var segs []string
	query := ""
	if err == nil {
		if h := safeSegment(strings.ToLower(u.Hostname())); h != "" {
			host = h
		}
		for _, s := range strings.Split(u.EscapedPath(), "/") {
			if dec, err := url.PathUnescape(s); err == nil {
				s = dec
			}
			if seg := safeSegment(s); seg != "" {
				segs = append(segs, seg)
			}
		}
		if strings.HasSuffix(u.Path, "/") && len(segs) > 0 {
			segs = append(segs, "index")
		}
		query = u.RawQuery
	}
	if len(segs) == 0 {
		segs = []string{"index"}
	}
	last := segs[len(segs)-1]
	for _, ext := range []string{".html", ".htm", ".php", ".aspx", ".asp", ".jsp"} {
		if strings.HasSuffix(strings.ToLower(last), ext) && len(last) > len(ext) {
			last = last[:len(last)-len(ext)]
			break
		}
	}
	if query != "" {
		last += "_" + truncate(safeSegment(strings.NewReplacer("=", "-", "&", "_").Replace(query)), 60) + "_" + shortHash(query)
	}
	segs[len(segs)-1] = last
	rel := path.Join(append([]string{host}, segs...)...)
	return "html/" + rel + ".html", "markdown/" + rel + ".md"
}

// safeSegment keeps letters, digits and . _ - ~; "." and ".." become "_".
func safeSegment(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '~':
			b.WriteRune(r)
		case r > 127 && r != 0xFFFD:
			b.WriteRune(r) // non-ASCII letters are fine in ZIP names (UTF-8 flag)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), " ")
	if out == "." || out == ".." || strings.Trim(out, ".") == "" && out != "" {
		return "_"
	}
	return truncate(out, 120)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// Sign computes the X-Trawl-Signature value of a delivery:
// t=<unix>,v1=<hex HMAC-SHA256 of "t.body">.
func Sign(secret string, at time.Time, body []byte) string {
	t := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t))
	mac.Write([]byte("."))
	mac.Write(body)
	return "t=" + t + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Estimate renders the expected wait for n URLs behind queued ones.
func Estimate(ahead, n int, perSecond float64) string {
	if perSecond <= 0 {
		perSecond = 4
	}
	secs := int(float64(ahead+n)/perSecond) + 5
	switch {
	case secs < 60:
		return fmt.Sprintf("about %d seconds", (secs+9)/10*10)
	case secs < 3600:
		m := (secs + 59) / 60
		if m == 1 {
			return "about 1 minute"
		}
		return fmt.Sprintf("about %d minutes", m)
	default:
		h := (secs + 3599) / 3600
		if h == 1 {
			return "about 1 hour"
		}
		return fmt.Sprintf("about %d hours", h)
	}
}

// DeliveryMethod lists the delivery channels as the response names them.
func DeliveryMethod(email bool, callback string) string {
	var m []string
	if email {
		m = append(m, string(ChannelEmail))
	}
	if callback != "" {
		m = append(m, string(ChannelWebhook))
	}
	return strings.Join(m, ",")
}

// Render is the mode a job reads its pages in; a job stored before the
// mode was kept reads them in auto mode.
func Render(j ports.BulkJob) content.RenderMode {
	if j.Render == "" {
		return content.RenderAuto
	}
	return content.RenderMode(j.Render)
}
