// Package egress is Trawl's forward proxy for traffic it does not send
// itself: a headless browser's documents, scripts, XHR, iframes, images,
// WebSockets and redirects. Every connection is dialled through the
// fetcher's guarded dialer, so the name is resolved here and each address is
// checked when the socket connects: the browser never resolves a name or
// opens a connection to a private address on its own.
package egress

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DialFunc opens a guarded connection ("tcp", "host:port").
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Options configure a Proxy.
type Options struct {
	// Dial is the guarded dialer (adapters/fetch.Client.DialContext).
	Dial DialFunc
	// Listen is the address to listen on; default 127.0.0.1:0.
	Listen string
	// IdleTimeout closes a tunnel with no traffic either way; default 2 min.
	IdleTimeout time.Duration
	Log         *slog.Logger
}

// Proxy is an HTTP forward proxy (absolute-URI requests and CONNECT).
type Proxy struct {
	opts    Options
	ln      net.Listener
	srv     *http.Server
	tr      *http.Transport
	refused atomic.Int64
	wg      sync.WaitGroup
	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
}

// Start listens and serves until Close.
func Start(o Options) (*Proxy, error) {
	if o.Dial == nil {
		return nil, errors.New("egress.Start: a guarded dialer is required")
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 2 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, err
	}
	p := &Proxy{opts: o, ln: ln, tunnels: map[net.Conn]struct{}{}}
	p.tr = &http.Transport{
		DialContext:           o.Dial,
		Proxy:                 nil,
		ForceAttemptHTTP2:     false,
		MaxIdleConns:          64,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		DisableCompression:    true, // pass the body through as the site sent it
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	p.wg.Add(1)
	go func() { defer p.wg.Done(); _ = p.srv.Serve(ln) }()
	return p, nil
}

// Addr is the "ip:port" the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Refused counts connections the guard or the scheme rule refused.
func (p *Proxy) Refused() int64 { return p.refused.Load() }

// Close stops the proxy and its open tunnels.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.tr.CloseIdleConnections()
	p.mu.Lock()
	for c := range p.tunnels {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// ServeHTTP forwards one proxied request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		// Only http is forwarded in the clear; https comes through CONNECT.
		p.refused.Add(1)
		http.Error(w, "only http and https are forwarded", http.StatusForbidden)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if c := r.Header.Get("Connection"); c != "" {
		for _, f := range strings.Split(c, ",") {
			out.Header.Del(strings.TrimSpace(f))
		}
	}
	res, err := p.tr.RoundTrip(out)
	if err != nil {
		p.refused.Add(1)
		p.opts.Log.Debug("egress: request refused or failed", "host", r.URL.Hostname(), "err", err)
		http.Error(w, "the target could not be reached", http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	for _, h := range hopHeaders {
		res.Header.Del(h)
	}
	for k, vs := range res.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(res.StatusCode)
	_, _ = io.Copy(w, res.Body)
}

// tunnel answers CONNECT: the guarded dialer opens the target, then bytes
// flow both ways until either side closes or the tunnel idles.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || host == "" || port == "" {
		p.refused.Add(1)
		http.Error(w, "bad CONNECT target", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	target, err := p.opts.Dial(ctx, "tcp", net.JoinHostPort(host, port))
	cancel()
	if err != nil {
		p.refused.Add(1)
		p.opts.Log.Debug("egress: tunnel refused or failed", "host", host, "err", err)
		http.Error(w, "the target could not be reached", http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		target.Close()
		http.Error(w, "tunnelling unsupported", http.StatusInternalServerError)
		return
	}
	client, rw, err := hj.Hijack()
	if err != nil {
		target.Close()
		return
	}
	if _, err := client.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		client.Close()
		target.Close()
		return
	}
	// Bytes the client sent after the CONNECT head are already buffered.
	if n := rw.Reader.Buffered(); n > 0 {
		b, _ := rw.Reader.Peek(n)
		if _, err := target.Write(b); err != nil {
			client.Close()
			target.Close()
			return
		}
	}
	p.mu.Lock()
	p.tunnels[client], p.tunnels[target] = struct{}{}, struct{}{}
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		pipe(client, target, p.opts.IdleTimeout)
		p.mu.Lock()
		delete(p.tunnels, client)
		delete(p.tunnels, target)
		p.mu.Unlock()
	}()
}

// pipe copies both ways; an idle deadline ends a tunnel nobody uses.
func pipe(a, b net.Conn, idle time.Duration) {
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			_ = src.SetReadDeadline(time.Now().Add(idle))
			n, err := src.Read(buf)
			if n > 0 {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		done <- struct{}{}
	}
	go cp(a, b)
	go cp(b, a)
	<-done
	a.Close()
	b.Close()
	<-done
}
