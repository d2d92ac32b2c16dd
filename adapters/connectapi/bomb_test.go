package connectapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
)

// bombSize is what the compressed request inflates to: a single
// length-delimited field 1 of 256 MiB, valid protobuf for every request
// message whose field 1 is a string (health's service name, Trawl's urls).
const bombSize = 256 << 20

var bomb = sync.OnceValue(func() []byte {
	// A gzip stream may hold several members, inflated one after the other:
	// the field's header, then one compressed MiB repeated, which keeps
	// building the bomb cheap.
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		return buf.Bytes()
	}
	out := member(append([]byte{0x0a}, binary.AppendUvarint(nil, bombSize)...))
	mib := member(bytes.Repeat([]byte("a"), 1<<20))
	for range bombSize >> 20 {
		out = append(out, mib...)
	}
	return out
})

// envelope frames a compressed message for gRPC and Connect streaming.
func envelope(compressed []byte) []byte {
	out := make([]byte, 5, 5+len(compressed))
	out[0] = 1 // compressed
	binary.BigEndian.PutUint32(out[1:], uint32(len(compressed)))
	return append(out, compressed...)
}

// unenvelope joins the messages of a Connect stream, inflating the
// compressed ones.
func unenvelope(t *testing.T, b []byte) []byte {
	t.Helper()
	var out []byte
	for len(b) >= 5 {
		flags, n := b[0], int(binary.BigEndian.Uint32(b[1:5]))
		if len(b) < 5+n {
			t.Fatalf("truncated envelope")
		}
		msg := b[5 : 5+n]
		if flags&1 != 0 {
			zr, err := gzip.NewReader(bytes.NewReader(msg))
			if err != nil {
				t.Fatal(err)
			}
			if msg, err = io.ReadAll(io.LimitReader(zr, 1<<20)); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, msg...)
		b = b[5+n:]
	}
	return out
}

// heapObjects is the live heap as the runtime counts it.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakGrowth runs fn while sampling the heap and returns the highest
// growth over the level before it.
func peakGrowth(fn func()) uint64 {
	runtime.GC()
	base := heapObjects()
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			if h := heapObjects(); h > peak {
				peak = h
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	if peak < base {
		return 0
	}
	return peak - base
}

type bombAnswer struct {
	status     int
	grpcStatus string
	body       []byte
}

// sendBomb posts the bomb to one procedure in one protocol.
func sendBomb(hc *http.Client, base string, p procedure, protocol, token string) (bombAnswer, error) {
	gz := bomb()
	var body []byte
	h := http.Header{}
	switch {
	case protocol == "grpc":
		body = envelope(gz)
		h.Set("Content-Type", "application/grpc")
		h.Set("Grpc-Encoding", "gzip")
		h.Set("Te", "trailers")
	case p.ClientStream || p.ServerStream:
		body = envelope(gz)
		h.Set("Content-Type", "application/connect+proto")
		h.Set("Connect-Content-Encoding", "gzip")
		h.Set("Connect-Protocol-Version", "1")
	default:
		body = gz
		h.Set("Content-Type", "application/proto")
		h.Set("Content-Encoding", "gzip")
		h.Set("Connect-Protocol-Version", "1")
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+p.Path, bytes.NewReader(body))
	req.Header = h
	res, err := hc.Do(req)
	if err != nil {
		return bombAnswer{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return bombAnswer{status: res.StatusCode, grpcStatus: res.Trailer.Get("Grpc-Status") + res.Header.Get("Grpc-Status"), body: raw}, err
}

// TestCompressedBombOnEveryProcedure: 254 KB of gzip that inflates to
// 256 MiB, sent to every RPC path (health and reflection included) over
// Connect and gRPC, with and without a token, is refused while the heap
// grows by less than 20 MB, and the answer echoes nothing of it. Health and
// reflection, and every call with a token, answer resource_exhausted;
// Trawl's services refuse a call without a token before reading it.
func TestCompressedBombOnEveryProcedure(t *testing.T) {
	e := start(t)
	hc := h2c()
	const limit = 20 << 20
	procs := procedures(t, e.RPC)
	var all []string
	for _, p := range procs {
		all = append(all, p.Path)
	}
	for _, must := range []string{"/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch", "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
		"/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "/trawl.v1.PageService/GetContent"} {
		if !strings.Contains(strings.Join(all, " "), must) {
			t.Fatalf("%s is not among the procedures %v", must, all)
		}
	}
	t.Logf("bomb: %d bytes of gzip inflating to %d", len(bomb()), bombSize)
	for _, p := range procs {
		for _, run := range []struct{ protocol, token string }{{"connect", ""}, {"grpc", ""}, {"connect", e.tok}, {"grpc", e.tok}} {
			protocol := run.protocol
			name := protocol + "-anonymous"
			want, wantGRPC, wantHTTP := "resource_exhausted", "8", http.StatusTooManyRequests
			if run.token != "" {
				name = protocol + "-token"
			} else if strings.HasPrefix(p.Path, "/trawl.") {
				want, wantGRPC, wantHTTP = "unauthenticated", "16", http.StatusUnauthorized
			}
			t.Run(name+p.Path, func(t *testing.T) {
				var a bombAnswer
				var err error
				growth := peakGrowth(func() { a, err = sendBomb(hc, e.Server.URL, p, protocol, run.token) })
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("peak heap growth %.1f MB", float64(growth)/(1<<20))
				if growth >= limit {
					t.Errorf("heap grew by %d bytes", growth)
				}
				switch {
				case protocol == "grpc":
					if a.grpcStatus != wantGRPC {
						t.Errorf("grpc-status %q, want %s (%s): %.200s", a.grpcStatus, wantGRPC, want, a.body)
					}
				case p.ClientStream || p.ServerStream:
					if !strings.Contains(string(unenvelope(t, a.body)), `"`+want+`"`) {
						t.Errorf("answer %d %.200s, want %s", a.status, a.body, want)
					}
				default:
					if a.status != wantHTTP || !strings.Contains(string(a.body), `"`+want+`"`) {
						t.Errorf("answer %d %.200s, want %s", a.status, a.body, want)
					}
				}
				if len(a.body) > 4096 || strings.Contains(string(a.body), "aaaaaaaa") {
					t.Errorf("the answer echoes the request (%d bytes)", len(a.body))
				}
			})
		}
	}
	t.Run("concurrent", func(t *testing.T) {
		check := procedure{Path: "/grpc.health.v1.Health/Check"}
		growth := peakGrowth(func() {
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a, err := sendBomb(hc, e.Server.URL, check, []string{"connect", "grpc"}[i%2], "")
					if err != nil || a.status >= 500 {
						t.Errorf("answer %d %v", a.status, err)
					}
				}()
			}
			wg.Wait()
		})
		t.Logf("4 concurrent bombs: peak heap growth %.1f MB", float64(growth)/(1<<20))
		// Each message in flight may hold up to the 1 MiB limit and the
		// growth of its buffers (a few MB, more under the race detector).
		if growth >= 2*limit {
			t.Errorf("heap grew by %d bytes", growth)
		}
	})
}

// TestMessageLimitFollowsTheBodyLimit: the RPC limit is the configured body
// limit, compressed or not.
func TestMessageLimitFollowsTheBodyLimit(t *testing.T) {
	e := startOn(t, memstore.New(), apitest.Options{MaxBodyBytes: 4096})
	hc := h2c()
	p := procedure{Path: "/trawl.v1.PageService/GetContent"}
	for _, size := range []int{1000, 8000} {
		raw, _ := proto.Marshal(&trawlv1.GetContentRequest{Url: "http://news.test/" + strings.Repeat("a", size)})
		for _, compress := range []bool{false, true} {
			req := fuzzRequest(p, "connect", raw, compress)
			req.Header.Set("Authorization", "Bearer "+e.tok)
			req.RequestURI, req.URL.Scheme, req.URL.Host = "", "http", strings.TrimPrefix(e.Server.URL, "http://")
			res, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			over := strings.Contains(string(body), `"resource_exhausted"`)
			if over != (size > 4096) {
				t.Errorf("%d-byte url (compressed %v): %d %.200s", size, compress, res.StatusCode, body)
			}
		}
	}
}
