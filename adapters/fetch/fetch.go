// Package fetch is Trawl's HTTP client for target sites. Every connection it
// opens goes to a public address: the check runs when the connection is
// dialled (so DNS rebinding cannot slip past a check made earlier), on the
// first URL and on every redirect. Hosts named in resolve overrides are the
// one exception; that is how tests and operators reach local servers.
package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/andybalholm/brotli"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
	"github.com/trawlhq/trawl/ports"
)

// BrowserUserAgent is what Trawl sends: sites serve browsers their real pages.
const BrowserUserAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

const htmlAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// Options configure a Client.
type Options struct {
	ConnectTimeout time.Duration // default 10 s
	Timeout        time.Duration // whole request, body included; default 30 s
	MaxBytes       int64         // default 10 MiB
	MaxRedirects   int           // default 10
	UserAgent      string
	Proxy          *url.URL
	// Resolve maps "host:port" to "ip:port", like curl's --resolve.
	Resolve map[string]string
	// LookupIP resolves host names; default net.DefaultResolver.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Client implements ports.Fetcher.
type Client struct {
	opts   Options
	http   *http.Client
	dialer *net.Dialer // guarded: refuses non-public addresses
	direct *net.Dialer // for resolve overrides only
}

var _ ports.Fetcher = (*Client)(nil)

// errNonPublic marks a connection refused by the address guard.
var errNonPublic = errors.New("non-public address")

// New builds a client.
func New(o Options) *Client {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 10 << 20
	}
	if o.MaxRedirects <= 0 {
		o.MaxRedirects = 10
	}
	if o.UserAgent == "" {
		o.UserAgent = BrowserUserAgent
	}
	if o.LookupIP == nil {
		o.LookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	res := map[string]string{}
	for k, v := range o.Resolve {
		res[strings.ToLower(k)] = v
	}
	o.Resolve = res
	c := &Client{opts: o}
	c.dialer = &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second, Control: c.control}
	c.direct = &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext:           c.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   o.ConnectTimeout,
		ResponseHeaderTimeout: o.Timeout,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true, // we ask for gzip, deflate and br ourselves and decode with a size cap
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	if o.Proxy != nil {
		tr.Proxy = http.ProxyURL(o.Proxy)
	}
	c.http = &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}
	return c
}

// overridden: the "host:port" a resolve override sends elsewhere.
func (c *Client) overridden(hostport string) (string, bool) {
	t, ok := c.opts.Resolve[strings.ToLower(hostport)]
	return t, ok
}

// control runs on every socket about to connect: the last word on where a
// connection may go.
func (c *Client) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if c.opts.Proxy != nil && c.isProxyAddr(address) {
		return nil
	}
	if !weburl.IsPublicIP(ap.Addr()) {
		return errNonPublic
	}
	return nil
}

func (c *Client) isProxyAddr(address string) bool {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return false
	}
	port := c.opts.Proxy.Port()
	if port == "" {
		port = weburl.DefaultPort(c.opts.Proxy.Scheme)
	}
	if fmt.Sprint(ap.Port()) != port {
		return false
	}
	host := c.opts.Proxy.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap() == ap.Addr().Unmap()
	}
	ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", host)
	if err != nil {
		return false
	}
	for _, ip := range ips {
		if ip.Unmap() == ap.Addr().Unmap() {
			return true
		}
	}
	return false
}

// dial resolves the host itself and connects only to public addresses.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if target, ok := c.overridden(addr); ok {
		return c.direct.DialContext(ctx, network, target)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return c.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port)) // control decides
	}
	ips, err := c.publicAddrs(ctx, host)
	if err != nil {
		return nil, err
	}
	var last error
	for _, ip := range ips {
		conn, err := c.dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// publicAddrs resolves host; any non-public answer refuses the host whole,
// so a name cannot mix a public and a private address.
func (c *Client) publicAddrs(ctx context.Context, host string) ([]netip.Addr, error) {
	ips, err := c.opts.LookupIP(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	for _, ip := range ips {
		if !weburl.IsPublicIP(ip) {
			return nil, errNonPublic
		}
	}
	return ips, nil
}

// redirectError stops a redirect chain with a caller-facing failure.
type redirectError struct{ err error }

func (r *redirectError) Error() string { return r.err.Error() }

type fieldKey struct{}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	field, _ := req.Context().Value(fieldKey{}).(string)
	if len(via) > c.opts.MaxRedirects {
		return &redirectError{failure.E("fetch", failure.Unavailable, fmt.Sprintf("The page could not be fetched: more than %d redirects.", c.opts.MaxRedirects))}
	}
	if ip, err := netip.ParseAddr(strings.Trim(req.URL.Hostname(), "[]")); err == nil && !weburl.IsPublicIP(ip) {
		return &redirectError{weburl.NonPublicError(field)}
	}
	u, err := weburl.Parse(req.URL.String(), weburl.Rules{Field: field, MaxLen: 2048})
	if err != nil {
		if fe, ok := failure.As(err); ok && strings.Contains(fe.Message, "non-public") {
			return &redirectError{err}
		}
		return &redirectError{failure.E("fetch", failure.Unavailable, "The page could not be fetched: it redirected to a URL Trawl does not follow ("+redirectReason(err)+").")}
	}
	if err := c.checkHost(req.Context(), u, field); err != nil {
		return &redirectError{err}
	}
	return nil
}

func redirectReason(err error) string {
	fe, ok := failure.As(err)
	if !ok {
		return "invalid URL"
	}
	m := strings.TrimPrefix(fe.Message, "The ")
	return strings.TrimSuffix(m, ".")
}

// checkHost refuses, before any request, a host that resolves to a
// non-public address (422) or does not resolve (503).
func (c *Client) checkHost(ctx context.Context, u *url.URL, field string) error {
	port := u.Port()
	if port == "" {
		port = weburl.DefaultPort(u.Scheme)
	}
	if _, ok := c.overridden(net.JoinHostPort(u.Hostname(), port)); ok {
		return nil
	}
	if c.opts.Proxy != nil {
		return nil // the proxy resolves; the dial guard cannot see its target
	}
	_, err := c.publicAddrs(ctx, u.Hostname())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errNonPublic):
		return weburl.NonPublicError(field)
	default:
		return unavailable(err, u.Hostname(), c.opts)
	}
}

// Fetch implements ports.Fetcher.
func (c *Client) Fetch(ctx context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
	field := r.Field
	if field == "" {
		field = "url"
	}
	u, err := weburl.Parse(r.URL, weburl.Rules{Field: field, MaxLen: 2048})
	if err != nil {
		return ports.FetchResponse{}, err
	}
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, fieldKey{}, field), c.opts.Timeout)
	defer cancel()
	if err := c.checkHost(ctx, u, field); err != nil {
		return ports.FetchResponse{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ports.FetchResponse{}, failure.Wrap("fetch", err)
	}
	accept := r.Accept
	if accept == "" {
		accept = htmlAccept
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	req.Header.Set("Upgrade-Insecure-Requests", "1")
	res, err := c.http.Do(req)
	if err != nil {
		return ports.FetchResponse{}, c.translate(err, u.Hostname(), field)
	}
	defer res.Body.Close()
	max := r.MaxBytes
	if max <= 0 {
		max = c.opts.MaxBytes
	}
	mediaType, params, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	mediaType = strings.ToLower(mediaType)
	if r.DocumentMaxBytes > 0 && mediaType != "" && !isText(mediaType) {
		max = r.DocumentMaxBytes
	}
	body, err := readBody(res, max)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return ports.FetchResponse{}, failure.E("fetch", failure.Unavailable, fmt.Sprintf("The page could not be fetched: it is larger than %d bytes.", max), err)
		}
		return ports.FetchResponse{}, c.translate(err, u.Hostname(), field)
	}
	if mediaType == "" {
		mediaType = strings.ToLower(strings.SplitN(http.DetectContentType(body), ";", 2)[0])
	}
	out := ports.FetchResponse{
		URL: u.String(), FinalURL: res.Request.URL.String(), StatusCode: res.StatusCode,
		ContentType: mediaType, Body: body, Redirects: redirectCount(res),
	}
	if isText(mediaType) {
		out.Body, out.Charset = toUTF8(body, res.Header.Get("Content-Type"), params["charset"])
	}
	return out, nil
}

func redirectCount(res *http.Response) int {
	n := 0
	for r := res.Request; r != nil && r.Response != nil; r = r.Response.Request {
		n++
	}
	return n
}

func isText(mediaType string) bool {
	if strings.HasPrefix(mediaType, "application/vnd.openxmlformats-") {
		return false // Office files: ZIP archives, whatever their name says
	}
	return strings.HasPrefix(mediaType, "text/") || strings.Contains(mediaType, "html") || strings.Contains(mediaType, "xml") || mediaType == "application/json"
}

var errTooLarge = errors.New("response too large")

// readBody reads at most max decoded bytes: a compressed bomb stops at the cap.
func readBody(res *http.Response, max int64) ([]byte, error) {
	raw := io.LimitReader(res.Body, max+1)
	var r io.Reader = raw
	switch strings.ToLower(strings.TrimSpace(res.Header.Get("Content-Encoding"))) {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		defer zr.Close()
		r = zr
	case "br":
		r = brotli.NewReader(raw)
	case "deflate":
		// "deflate" is zlib-wrapped by the spec and raw by many servers.
		buf := bytes.NewBuffer(nil)
		if _, err := io.Copy(buf, raw); err != nil {
			return nil, err
		}
		if zr, err := zlib.NewReader(bytes.NewReader(buf.Bytes())); err == nil {
			r = zr
		} else {
			r = flate.NewReader(bytes.NewReader(buf.Bytes()))
		}
	default:
		return nil, fmt.Errorf("unsupported content encoding %q", res.Header.Get("Content-Encoding"))
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooLarge
	}
	return b, nil
}

// toUTF8 converts a text body to UTF-8 from the charset the header, a BOM or
// a <meta> declares, or the one detection finds.
func toUTF8(body []byte, contentType, declared string) ([]byte, string) {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if name == "utf-8" || enc == nil {
		return bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")), "utf-8"
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return body, name
	}
	_ = declared
	return out, name
}

// translate turns a transport error into a caller-facing failure.
func (c *Client) translate(err error, host, field string) error {
	var re *redirectError
	if errors.As(err, &re) {
		return re.err
	}
	if errors.Is(err, errNonPublic) {
		return weburl.NonPublicError(field)
	}
	return unavailable(err, host, c.opts)
}

func unavailable(err error, host string, o Options) error {
	msg := "The page could not be fetched"
	var dns *net.DNSError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, errTooLarge):
		msg = fmt.Sprintf("The page could not be fetched: it is larger than %d bytes.", o.MaxBytes)
	case errors.As(err, &dns):
		msg = fmt.Sprintf("The page could not be fetched: the host %s was not found.", host)
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		msg = fmt.Sprintf("The page could not be fetched: %s did not answer within %s.", host, o.Timeout)
	case errors.As(err, &certErr):
		msg = fmt.Sprintf("The page could not be fetched: the TLS certificate of %s is not valid.", host)
	case errors.Is(err, syscall.ECONNREFUSED):
		msg = fmt.Sprintf("The page could not be fetched: %s refused the connection.", host)
	case errors.Is(err, context.Canceled):
		msg = "The request was cancelled."
	default:
		msg = fmt.Sprintf("The page could not be fetched from %s.", host)
	}
	return failure.E("fetch", failure.Unavailable, msg, err)
}

// Transport is the guarded transport, for other outbound calls to
// caller-supplied addresses (webhooks): the same dial-time address guard and
// resolve overrides apply.
func (c *Client) Transport() http.RoundTripper { return c.http.Transport }

// CheckURL refuses a URL whose host is not public (failure.Invalid naming
// field) or does not resolve (failure.Unavailable). Any port is allowed.
func (c *Client) CheckURL(ctx context.Context, raw, field string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return failure.Invalidf("fetch.CheckURL", field, "The %s must be a valid URL.", field)
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil {
		if _, ok := c.overridden(u.Host); !ok && !weburl.IsPublicIP(ip) {
			return weburl.NonPublicError(field)
		}
		return nil
	}
	err = c.checkHost(ctx, u, field)
	if failure.Is(err, failure.Unavailable) {
		return failure.Invalidf("fetch.CheckURL", field, "The %s host %s could not be resolved.", field, u.Hostname())
	}
	return err
}
