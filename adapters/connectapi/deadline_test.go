package connectapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/testkit/apitest"
	"github.com/trawlhq/trawl/testkit/memstore"
	"github.com/trawlhq/trawl/testkit/sites"
)

// TestDeadlinePassingDuringTheCall: a page that takes 2 s, asked for with a
// 500 ms deadline, is answered deadline_exceeded in every protocol, soon
// after the deadline, and charges nothing.
func TestDeadlinePassingDuringTheCall(t *testing.T) {
	slow := sites.New(t, "slow.test")
	slow.Mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, `<html><body><article><p>A page that took its time to arrive, with a paragraph long enough to be read as the main content of the page.</p></article></body></html>`)
	})
	e := startOn(t, memstore.New(), apitest.Options{Resolve: sites.Resolve(slow)})
	msg, _ := proto.Marshal(&trawlv1.GetContentRequest{Url: "http://slow.test/page"})
	getContent := procedure{Path: "/trawl.v1.PageService/GetContent"}
	hc := h2c()
	for _, c := range []struct{ protocol, header, value string }{
		{"connect", "Connect-Timeout-Ms", "500"},
		{"grpc", "Grpc-Timeout", "500m"},
		{"grpc-web", "Grpc-Timeout", "500m"},
	} {
		began := time.Now()
		var a answer
		if c.protocol == "grpc-web" {
			a = grpcWebCall(t, hc, e.Server.URL, getContent, msg, c.header, c.value, "Authorization", "Bearer "+e.tok)
		} else {
			a = rawCall(t, hc, e.Server.URL, getContent, c.protocol, msg, c.header, c.value, "Authorization", "Bearer "+e.tok)
		}
		took := time.Since(began)
		got := a.grpcStatus()
		if c.protocol == "connect" {
			got = ""
			if strings.Contains(string(a.body), `"code":"deadline_exceeded"`) {
				got = "4"
			}
		}
		if got != "4" {
			t.Errorf("%s: status %d grpc-status %q, want deadline_exceeded: %.300s", c.protocol, a.status, a.grpcStatus(), a.body)
		}
		if took > 1500*time.Millisecond {
			t.Errorf("%s: answered after %s, with a 500 ms deadline", c.protocol, took)
		}
		if charged := a.header.Get("X-Credits-Charged"); charged != "0" {
			t.Errorf("%s: X-Credits-Charged %q, want 0", c.protocol, charged)
		}
	}
	c, err := e.creds.GetCredits(context.Background(), connect.NewRequest(&trawlv1.GetCreditsRequest{}))
	if err != nil || c.Msg.Balance != 90000 {
		t.Fatalf("balance after expired calls: %v %v, want 90000", c, err)
	}
}

// grpcWebCall sends one message in the gRPC-Web protocol and reads the
// trailers the answer carries in its last frame into the answer's header.
func grpcWebCall(t *testing.T, hc *http.Client, base string, p procedure, msg []byte, headers ...string) answer {
	t.Helper()
	body := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(body[1:], uint32(len(msg)))
	body = append(body, msg...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+p.Path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatalf("grpc-web %s: %v", p.Path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	a := answer{status: res.StatusCode, header: res.Header.Clone(), body: raw}
	for rest := raw; len(rest) >= 5; {
		n := int(binary.BigEndian.Uint32(rest[1:5]))
		if len(rest) < 5+n {
			break
		}
		if rest[0]&0x80 != 0 {
			for _, line := range strings.Split(string(rest[5:5+n]), "\r\n") {
				if k, v, ok := strings.Cut(line, ":"); ok {
					a.header.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k)), strings.TrimSpace(v))
				}
			}
		}
		rest = rest[5+n:]
	}
	return a
}
