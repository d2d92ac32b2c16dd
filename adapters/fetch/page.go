package fetch

import (
	"context"
	"net/http"
	"strings"

	"github.com/trawlhq/trawl/ports"
)

// MobileUserAgent is what Trawl sends for device=mobile.
const MobileUserAgent = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"

// callerHeaders are the headers a caller set on a request, and the host
// they are for.
type callerHeaders struct {
	host  string
	names []string
}

type callerHeadersKey struct{}

// withPageOptions sets the device's User-Agent, the locale's
// Accept-Language, and the caller's headers and cookies, noting which are
// the caller's so a redirect to another host drops them.
func withPageOptions(req *http.Request, o ports.PageOptions) *http.Request {
	if o.Device == "mobile" {
		req.Header.Set("User-Agent", MobileUserAgent)
	}
	if o.Locale != "" {
		lang, _, found := strings.Cut(o.Locale, "-")
		v := o.Locale
		if found {
			v += "," + lang + ";q=0.9"
		}
		req.Header.Set("Accept-Language", v)
	}
	if len(o.Headers) == 0 && len(o.Cookies) == 0 {
		return req
	}
	ch := callerHeaders{host: strings.ToLower(req.URL.Hostname())}
	for k, v := range o.Headers {
		req.Header.Set(k, v)
		ch.names = append(ch.names, k)
	}
	if len(o.Cookies) > 0 {
		parts := make([]string, 0, len(o.Cookies))
		for _, c := range o.Cookies {
			parts = append(parts, c.Name+"="+c.Value)
		}
		req.Header.Set("Cookie", strings.Join(parts, "; "))
		ch.names = append(ch.names, "Cookie")
	}
	return req.WithContext(context.WithValue(req.Context(), callerHeadersKey{}, ch))
}

// dropForeign removes the caller's headers and cookies from a redirect to
// another host: the client copies the first request's headers to every
// hop, and the caller gave them for the target host only.
func dropForeign(req *http.Request, via []*http.Request) {
	if len(via) == 0 {
		return
	}
	ch, ok := via[0].Context().Value(callerHeadersKey{}).(callerHeaders)
	if !ok || strings.EqualFold(req.URL.Hostname(), ch.host) {
		return
	}
	for _, n := range ch.names {
		req.Header.Del(n)
	}
}
