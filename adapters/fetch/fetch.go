// Package fetch is Trawl's HTTP client for target sites. Every connection it
// opens goes to a public address: the check runs when the connection is
// dialled (so DNS rebinding cannot slip past a check made earlier), on the
// first URL and on every redirect. Hosts named in resolve overrides are the
// one exception; that is how tests and operators reach local servers.
package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"

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
	// Proxies is the pool by country (TRAWL_FETCH_PROXIES): a request
	// naming a country goes through one of its proxies.
	Proxies []Proxy
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
	pool   map[string][]*pooled
}

var (
	_ ports.Fetcher      = (*Client)(nil)
	_ ports.AddressGuard = (*Client)(nil)
)

// errNonPublic marks a connection refused by the address guard.
var errNonPublic = errors.New("non-public address")

// IsNonPublic reports whether err is the address guard refusing a
// connection to a non-public address.
func IsNonPublic(err error) bool {
	var fe *ports.FetchError
	return errors.Is(err, errNonPublic) || errors.As(err, &fe) && fe.Reason == ports.FetchNonPublic
}

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
	c.buildPool()
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

// checkRedirect stops a redirect chain with the typed reason a redirect
// target is refused for.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	host := req.URL.Hostname()
	dropForeign(req, via)
	if len(via) > c.opts.MaxRedirects {
		return &ports.FetchError{Reason: ports.FetchTooManyRedirects, Host: host, Limit: int64(c.opts.MaxRedirects)}
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && !weburl.IsPublicIP(ip) {
		return &ports.FetchError{Reason: ports.FetchNonPublic, Host: host}
	}
	u, err := weburl.Parse(req.URL.String(), weburl.Rules{MaxLen: 2048})
	if err != nil {
		v := &weburl.Violation{Rule: "is not a valid URL"}
		errors.As(err, &v)
		if v.NonPublic {
			return &ports.FetchError{Reason: ports.FetchNonPublic, Host: host}
		}
		return &ports.FetchError{Reason: ports.FetchBadRedirect, Host: host, Rule: v.Rule}
	}
	return c.checkHost(req.Context(), u)
}

// checkHost refuses, before any request, a host that resolves to a
// non-public address or does not resolve, with the typed reason.
func (c *Client) checkHost(ctx context.Context, u *url.URL) error {
	port := u.Port()
	if port == "" {
		port = weburl.DefaultPort(u.Scheme)
	}
	if _, ok := c.overridden(net.JoinHostPort(u.Hostname(), port)); ok {
		return nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil {
		if !weburl.IsPublicIP(ip) {
			return &ports.FetchError{Reason: ports.FetchNonPublic, Host: u.Hostname()}
		}
		return nil
	}
	if weburl.IsLocalName(u.Hostname()) {
		return &ports.FetchError{Reason: ports.FetchNonPublic, Host: u.Hostname()}
	}
	if c.opts.Proxy != nil {
		return nil // the proxy resolves; the dial guard cannot see its target
	}
	if _, err := c.publicAddrs(ctx, u.Hostname()); err != nil {
		return c.reason(err, u.Hostname())
	}
	return nil
}

// CheckHost implements ports.AddressGuard with the check Fetch runs before
// any request.
func (c *Client) CheckHost(ctx context.Context, u *url.URL) error {
	if u == nil || u.Hostname() == "" {
		return &ports.FetchError{Reason: ports.FetchBadURL}
	}
	if err := c.checkHost(ctx, u); err != nil {
		return c.reason(err, u.Hostname())
	}
	return nil
}

// Fetch implements ports.Fetcher.
func (c *Client) Fetch(ctx context.Context, r ports.FetchRequest) (ports.FetchResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	res, out, host, err := c.open(ctx, r)
	if err != nil {
		return ports.FetchResponse{}, err
	}
	defer res.Body.Close()
	max := r.MaxBytes
	if max <= 0 {
		max = c.opts.MaxBytes
	}
	if r.DocumentMaxBytes > 0 && out.ContentType != "" && !isText(out.ContentType) {
		max = r.DocumentMaxBytes
	}
	body, err := readBody(res, max)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			// The message names the cap that applied: the page's or the document's.
			err = &ports.FetchError{Reason: ports.FetchTooLarge, Host: host, Limit: max, Err: err}
		}
		return ports.FetchResponse{}, c.reason(err, host)
	}
	if out.ContentType == "" {
		out.ContentType = strings.ToLower(strings.SplitN(http.DetectContentType(body), ";", 2)[0])
	}
	out.Body = body
	if isText(out.ContentType) {
		out.Body, out.Charset = toUTF8(body, res.Header.Get("Content-Type"))
	}
	return out, nil
}

// Stream fetches like Fetch but hands the body to read as it arrives,
// decompressed and not charset-converted, instead of buffering it: a reader
// that has what it needs returns, and the transfer stops there. The
// response it gets has no Body, and Charset is what Content-Type declares.
// Reading past r.MaxBytes fails with an error; read's own error is
// returned as it is.
func (c *Client) Stream(ctx context.Context, r ports.FetchRequest, read func(ports.FetchResponse, io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	res, out, host, err := c.open(ctx, r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	max := r.MaxBytes
	if max <= 0 {
		max = c.opts.MaxBytes
	}
	body, done, err := bodyReader(res, max)
	if err != nil {
		return c.reason(err, host)
	}
	defer done()
	if _, params, err := mime.ParseMediaType(res.Header.Get("Content-Type")); err == nil {
		out.Charset = strings.ToLower(params["charset"])
	}
	return read(out, &cappedReader{r: body, left: max, wrap: func(err error) error { return c.reason(err, host) }})
}

// cappedReader fails once more than left bytes come through, and turns
// transport errors into typed reasons.
type cappedReader struct {
	r    io.Reader
	left int64
	wrap func(error) error
}

func (c *cappedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, c.wrap(errTooLarge)
	}
	if err != nil && err != io.EOF {
		err = c.wrap(err)
	}
	return n, err
}

// open checks r's URL and host, sends the request and returns the response
// with its body unread, the answer's fields known from its head, and the
// host. The caller closes the body.
func (c *Client) open(ctx context.Context, r ports.FetchRequest) (res *http.Response, out ports.FetchResponse, host string, err error) {
	u := r.URL
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, out, "", &ports.FetchError{Reason: ports.FetchBadURL}
	}
	if err := c.checkHost(ctx, u); err != nil {
		return nil, out, "", c.reason(err, u.Hostname())
	}
	target := *u
	req := (&http.Request{
		Method: http.MethodGet, URL: &target, Host: u.Host, Header: make(http.Header, 6),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}).WithContext(ctx)
	accept := r.Accept
	if accept == "" {
		accept = htmlAccept
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Language", "en-US,en;q=0.9")
	req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	req.Header.Set("Upgrade-Insecure-Requests", "1")
	conditional(req.Header, r)
	req = withPageOptions(req, r.Page)
	res, err = c.clientFor(r.Page.Country, u.String(), r.Page.Retry).Do(req)
	if err != nil {
		return nil, out, "", c.reason(err, u.Hostname())
	}
	mediaType, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	out = ports.FetchResponse{
		URL: u.String(), FinalURL: res.Request.URL.String(), StatusCode: res.StatusCode,
		ContentType: strings.ToLower(mediaType), Redirects: redirectCount(res),
	}
	out.ETag, out.LastModified = validators(res.Header)
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable {
		out.RetryAfter = retryAfter(res.Header.Get("Retry-After"), time.Now())
	}
	return res, out, u.Hostname(), nil
}

// retryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		if n < 0 {
			return 0
		}
		return time.Duration(min(n, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), 24*time.Hour)
	}
	return 0
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
	enc := strings.ToLower(strings.TrimSpace(res.Header.Get("Content-Encoding")))
	switch enc {
	case "gzip", "x-gzip":
		return readGzip(res, max)
	}
	r, done, err := bodyReader(res, max)
	if err != nil {
		return nil, err
	}
	defer done()
	if (enc == "" || enc == "identity") && res.ContentLength > 0 {
		// Announced: read into a buffer of that length (and a byte to see
		// the end), no copy.
		b, err := readAll(make([]byte, 0, min(res.ContentLength+1, max+1)), r, max)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return readUnsized(r, max)
}

// gzipReaders are decoders kept between bodies: a new one costs more than
// decoding a small page.
var gzipReaders sync.Pool

// readGzip reads a gzip-coded body. The compressed bytes come first, into
// a scratch buffer (they are done with once decoded), so the decoded page
// is written into a buffer of the size the gzip trailer states, as far as
// max allows; a trailer that says less only means a buffer that grows.
func readGzip(res *http.Response, max int64) ([]byte, error) {
	sp := getScratch()
	defer putScratch(sp)
	raw, err := readAll((*sp)[:0], io.LimitReader(res.Body, max+1), max)
	*sp = raw[:0]
	if err != nil {
		return nil, err
	}
	hint := int64(unknownSizeHint)
	if len(raw) >= 18 { // header and trailer: the last 4 bytes are the size mod 2^32
		hint = int64(binary.LittleEndian.Uint32(raw[len(raw)-4:])) + 1
		if hint < 512 {
			hint = 512
		}
	}
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	if zr == nil {
		zr = new(gzip.Reader)
	}
	defer gzipReaders.Put(zr)
	if err := zr.Reset(bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	b, err := readAll(make([]byte, 0, min(hint, max+1)), zr, max)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// readAll reads r to its end after what b holds, doubling b as it fills
// (not growing it by append's quarter for large slices: a body read in many
// steps is copied a few times, not dozens), failing past max. The buffer is
// returned on failure too, for its space to be reused.
func readAll(b []byte, r io.Reader, max int64) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			if int64(len(b)) > max {
				return b, errTooLarge
			}
			grow := 2 * int64(cap(b))
			if grow < unknownSizeHint {
				grow = unknownSizeHint
			}
			nb := make([]byte, len(b), min(grow, max+1))
			copy(nb, b)
			b = nb
		}
		n, err := r.Read(b[len(b):min(int64(cap(b)), max+1)])
		b = b[:len(b)+n]
		if int64(len(b)) > max {
			return b, errTooLarge
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// scratch keeps the buffers bodies of unknown length are read into. Such
// a body (a page sent in chunks, a compressed transfer) is read into one,
// grown as it needs, and copied out at its exact length: a page costs one
// allocation of its own size, where a buffer doubled from 32 KiB cost
// about twice the page, zeroed and mostly copied, on every fetch.
//
// The buffers live in a bounded list, not a sync.Pool: a pool is emptied
// by every second collection, and a server extracting pages collects every
// few pages, so a pooled buffer was mostly gone when the next fetch came
// and was grown again from 32 KiB, fresh memory the kernel had to fault in.
var scratch = make(chan *[]byte, scratchKept())

// maxScratch: a larger buffer (a rare huge page) is not kept, so what the
// list holds stays under scratchKept times this (32 MiB at most).
const maxScratch = 2 << 20

// scratchKept is how many buffers are kept: about two per fetch that can
// run on a CPU at once, between 4 and 16.
func scratchKept() int { return min(16, max(4, 2*runtime.GOMAXPROCS(0))) }

func getScratch() *[]byte {
	select {
	case sp := <-scratch:
		return sp
	default:
		b := make([]byte, 0, unknownSizeHint)
		return &b
	}
}

func putScratch(sp *[]byte) {
	if cap(*sp) > maxScratch {
		return
	}
	select {
	case scratch <- sp:
	default:
	}
}

// readUnsized reads r to its end, at most max bytes, through a scratch
// buffer, and returns the body at its exact length.
func readUnsized(r io.Reader, max int64) ([]byte, error) {
	sp := getScratch()
	defer putScratch(sp)
	b, err := readAll((*sp)[:0], r, max)
	*sp = b[:0]
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil // not zeroed first: copied over at once
}

// unknownSizeHint is the first buffer of a body of unannounced length.
const unknownSizeHint = 32 << 10

// bodyReader decodes res's Content-Encoding over at most max+1 bytes of the
// transfer; done releases the decoder.
func bodyReader(res *http.Response, max int64) (r io.Reader, done func(), err error) {
	raw := io.LimitReader(res.Body, max+1)
	done = func() {}
	switch strings.ToLower(strings.TrimSpace(res.Header.Get("Content-Encoding"))) {
	case "", "identity":
		return raw, done, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, func() { zr.Close() }, nil
	case "br":
		return brotli.NewReader(raw), done, nil
	case "deflate":
		// "deflate" is zlib-wrapped by the spec and raw by many servers.
		buf := bytes.NewBuffer(nil)
		if _, err := io.Copy(buf, raw); err != nil {
			return nil, nil, err
		}
		if zr, err := zlib.NewReader(bytes.NewReader(buf.Bytes())); err == nil {
			return zr, done, nil
		}
		return flate.NewReader(bytes.NewReader(buf.Bytes())), done, nil
	default:
		return nil, nil, fmt.Errorf("unsupported content encoding %q", res.Header.Get("Content-Encoding"))
	}
}

// reason classifies a transport error.
func (c *Client) reason(err error, host string) *ports.FetchError {
	if fe, ok := weburl.AsFetchError(err); ok {
		return fe
	}
	fe := &ports.FetchError{Reason: ports.FetchFailed, Host: host, Err: err}
	var dns *net.DNSError
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, errNonPublic):
		fe.Reason = ports.FetchNonPublic
	case errors.Is(err, errTooLarge):
		fe.Reason, fe.Limit = ports.FetchTooLarge, c.opts.MaxBytes
	case errors.As(err, &dns):
		fe.Reason = ports.FetchHostNotFound
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		fe.Reason, fe.Timeout = ports.FetchTimeout, c.opts.Timeout
	case errors.As(err, &certErr):
		fe.Reason = ports.FetchBadCertificate
	case errors.Is(err, syscall.ECONNREFUSED):
		fe.Reason = ports.FetchRefused
	case errors.Is(err, context.Canceled):
		fe.Reason = ports.FetchCanceled
	}
	return fe
}

// Transport is the guarded transport, for other outbound calls to
// caller-supplied addresses (webhooks): the same dial-time address guard and
// resolve overrides apply.
func (c *Client) Transport() http.RoundTripper { return c.http.Transport }

// CheckURL refuses, with the typed reason, a URL whose host is not public
// or does not resolve. Any port is allowed, and raw addresses are judged
// by their address.
func (c *Client) CheckURL(ctx context.Context, u *url.URL) error {
	if u == nil || u.Hostname() == "" {
		return &ports.FetchError{Reason: ports.FetchBadURL}
	}
	if err := c.checkHost(ctx, u); err != nil {
		return c.reason(err, u.Hostname())
	}
	return nil
}
