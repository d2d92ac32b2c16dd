package fetch

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/weburl"
)

// Proxy is one outbound proxy of the pool and the country it exits in.
type Proxy struct {
	Country string // ISO 3166-1 alpha-2, upper case
	URL     *url.URL
}

// ParseProxies reads TRAWL_FETCH_PROXIES: entries separated by commas or
// white space, each COUNTRY=URL, the URL an http proxy
// ("DE=http://user:pass@de1.example:3128, US=http://us1.example:8080").
func ParseProxies(s string) ([]Proxy, error) {
	var out []Proxy
	for _, e := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		cc, raw, ok := strings.Cut(e, "=")
		cc = strings.ToUpper(strings.TrimSpace(cc))
		if !ok || len(cc) != 2 || cc[0] < 'A' || cc[0] > 'Z' || cc[1] < 'A' || cc[1] > 'Z' {
			return nil, fmt.Errorf("TRAWL_FETCH_PROXIES: %q is not COUNTRY=URL with a two-letter country", e)
		}
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Scheme != "http" || u.Host == "" {
			return nil, fmt.Errorf("TRAWL_FETCH_PROXIES: the proxy of %s must be an http://host:port URL", cc)
		}
		out = append(out, Proxy{Country: cc, URL: u})
	}
	return out, nil
}

// Countries lists the pool's countries, sorted.
func (c *Client) Countries() []string {
	var out []string
	for cc := range c.pool {
		out = append(out, cc)
	}
	sort.Strings(out)
	return out
}

// Proxies is the pool, in the order given.
func (c *Client) Proxies() []Proxy { return append([]Proxy(nil), c.opts.Proxies...) }

// PickProxy is which of a country's n proxies serves a URL on an attempt:
// the same one for a URL, spread over URLs, and on a retry the next one.
func PickProxy(n int, pageURL string, retry int) int {
	if n <= 0 {
		return -1
	}
	h := fnv.New32a()
	h.Write([]byte(pageURL))
	return (int(h.Sum32()%uint32(n)) + retry) % n
}

// pooled is one proxy of the pool and the client that goes through it.
type pooled struct {
	proxy Proxy
	http  *http.Client
	index int // in opts.Proxies
}

// buildPool makes a client per proxy: each dials through its proxy with
// CONNECT to an address the guard resolved and checked here, so a proxy
// never resolves a name Trawl would refuse.
func (c *Client) buildPool() {
	c.pool = map[string][]*pooled{}
	for i, p := range c.opts.Proxies {
		tr := c.http.Transport.(*http.Transport).Clone()
		tr.Proxy = nil
		tr.DialContext = c.DialVia(i)
		c.pool[p.Country] = append(c.pool[p.Country], &pooled{proxy: p, index: i, http: &http.Client{Transport: tr, CheckRedirect: c.checkRedirect}})
	}
}

// clientFor is the client of a request: through a proxy of its country
// (the one PickProxy names), else the default one.
func (c *Client) clientFor(country, pageURL string, retry int) *http.Client {
	ps := c.pool[country]
	if len(ps) == 0 {
		return c.http
	}
	return ps[PickProxy(len(ps), pageURL, retry)].http
}

// ProxyIndex is the position in Proxies of the proxy a request of a
// country goes through; -1 when the pool has none there.
func (c *Client) ProxyIndex(country, pageURL string, retry int) int {
	ps := c.pool[country]
	if len(ps) == 0 {
		return -1
	}
	return ps[PickProxy(len(ps), pageURL, retry)].index
}

// DialVia is a guarded dialer through the i-th proxy of the pool: the
// target is resolved and checked as a direct dial would be, then reached
// with CONNECT to its address.
func (c *Client) DialVia(i int) func(ctx context.Context, network, addr string) (net.Conn, error) {
	p := c.opts.Proxies[i]
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		target, err := c.guardedTarget(ctx, addr)
		if err != nil {
			return nil, err
		}
		proxyAddr := p.URL.Host
		if p.URL.Port() == "" {
			proxyAddr = net.JoinHostPort(p.URL.Hostname(), "80")
		}
		// The proxy is the operator's: it is dialled as configured.
		conn, err := c.direct.DialContext(ctx, "tcp", proxyAddr)
		if err != nil {
			return nil, err
		}
		if d, ok := ctx.Deadline(); ok {
			_ = conn.SetDeadline(d)
		} else {
			_ = conn.SetDeadline(time.Now().Add(c.opts.ConnectTimeout))
		}
		req := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
		if u := p.URL.User; u != nil {
			pw, _ := u.Password()
			req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)) + "\r\n"
		}
		if _, err := conn.Write([]byte(req + "\r\n")); err != nil {
			conn.Close()
			return nil, err
		}
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			conn.Close()
			return nil, err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			conn.Close()
			return nil, fmt.Errorf("the proxy in %s refused the tunnel: %s", p.Country, res.Status)
		}
		_ = conn.SetDeadline(time.Time{})
		if br.Buffered() > 0 {
			conn.Close()
			return nil, errors.New("the proxy spoke before the tunnel was used")
		}
		return conn, nil
	}
}

// guardedTarget is the address a dial to addr may reach: a resolve
// override's, or a public address of the host (the first; any non-public
// one refuses the host whole).
func (c *Client) guardedTarget(ctx context.Context, addr string) (string, error) {
	if target, ok := c.overridden(addr); ok {
		return target, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !weburl.IsPublicIP(ip) {
			return "", errNonPublic
		}
		return net.JoinHostPort(ip.String(), port), nil
	}
	ips, err := c.publicAddrs(ctx, host)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(ips[0].String(), port), nil
}
