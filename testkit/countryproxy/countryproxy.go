// Package countryproxy serves outbound proxies for tests: each answers
// CONNECT, reads the plain HTTP requests sent through the tunnel, forwards
// them to the tunnel's target and stamps its country into the answer (an
// X-Proxy-Country header, and a sentence opening the first paragraph), or, as a blocked
// exit, answers every request 403 itself.
package countryproxy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is one test proxy.
type Proxy struct {
	Country string
	Name    string
	Blocked bool // answers 403 to every request
	ln      net.Listener
	// Requests counts the requests that came through; Tunnels the CONNECTs.
	Requests, Tunnels atomic.Int64
	mu                sync.Mutex
	targets           []string
}

// Stamp is the line a proxy adds to the pages it serves.
func Stamp(country, name string) string {
	return fmt.Sprintf("Served through the proxy %s in %s.", name, country)
}

// Start serves a proxy until the test ends.
func Start(t testing.TB, country, name string, blocked bool) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Country: country, Name: name, Blocked: blocked, ln: ln}
	go p.serve()
	t.Cleanup(func() { ln.Close() })
	return p
}

// URL is the proxy's address as TRAWL_FETCH_PROXIES takes it.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Targets lists the addresses tunnels were asked for.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *Proxy) handle(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil || req.Method != http.MethodConnect {
		fmt.Fprint(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	p.Tunnels.Add(1)
	p.mu.Lock()
	p.targets = append(p.targets, req.Host)
	p.mu.Unlock()
	if p.Blocked {
		fmt.Fprint(c, "HTTP/1.1 200 Connection Established\r\n\r\n")
		p.answer(br, c, nil)
		return
	}
	target, err := net.Dial("tcp", req.Host)
	if err != nil {
		fmt.Fprint(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer target.Close()
	fmt.Fprint(c, "HTTP/1.1 200 Connection Established\r\n\r\n")
	p.answer(br, c, target)
}

// answer serves the requests of a tunnel one after the other.
func (p *Proxy) answer(br *bufio.Reader, c net.Conn, target net.Conn) {
	var tr *bufio.Reader
	if target != nil {
		tr = bufio.NewReader(target)
	}
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		p.Requests.Add(1)
		var res *http.Response
		if target == nil {
			body := "<html><body><h1>Access denied</h1><p>This exit is blocked.</p></body></html>"
			res = &http.Response{StatusCode: 403, ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{"Content-Type": {"text/html"}}, Body: io.NopCloser(bytes.NewReader([]byte(body))), ContentLength: int64(len(body))}
		} else {
			if err := req.Write(target); err != nil {
				return
			}
			if res, err = http.ReadResponse(tr, req); err != nil {
				return
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if ct := res.Header.Get("Content-Type"); bytes.Contains([]byte(ct), []byte("html")) || ct == "" {
				// In the first paragraph, so the main content carries it.
				b = bytes.Replace(b, []byte("<p>"), []byte("<p>"+Stamp(p.Country, p.Name)+" "), 1)
			}
			res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			res.Header.Del("Transfer-Encoding")
			res.TransferEncoding = nil
			res.Header.Set("Content-Length", strconv.Itoa(len(b)))
		}
		res.Header.Set("X-Proxy-Country", p.Country)
		if err := res.Write(c); err != nil {
			return
		}
	}
}
