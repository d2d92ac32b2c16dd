package client

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// checkedTransport checks, against the document the server serves at
// /openapi.json, every request the client sends (operation, declared query
// parameters, body) and every answer it gets, and records the attempts.
type checkedTransport struct {
	t      testing.TB
	router routers.Router
	next   http.RoundTripper

	mu   sync.Mutex
	keys map[string][]string // the Idempotency-Key of each attempt, by operation
	// after, when set, runs once an answer to op has come.
	after func(op string, status int)
}

func newCheckedTransport(t testing.TB, serverURL string) *checkedTransport {
	t.Helper()
	res, err := http.Get(serverURL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	doc.Servers = nil // any host: the test server's port is random
	r, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &checkedTransport{t: t, router: r, next: http.DefaultTransport, keys: map[string][]string{}}
}

// Keys returns the Idempotency-Key of every request sent to op ("GET
// /v1/content") since the last call, "" for none, and forgets them.
func (c *checkedTransport) Keys(op string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.keys[op]
	delete(c.keys, op)
	return k
}

func (c *checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.t.Errorf("the client sent %s %s, which the OpenAPI document has no operation for: %v", req.Method, req.URL.Path, err)
		return c.next.RoundTrip(req)
	}
	op := req.Method + " " + route.Path
	c.mu.Lock()
	c.keys[op] = append(c.keys[op], req.Header.Get("Idempotency-Key"))
	c.mu.Unlock()
	declared := map[string]bool{}
	for _, p := range append(slices.Clone(route.PathItem.Parameters), route.Operation.Parameters...) {
		if p.Value.In == openapi3.ParameterInQuery {
			declared[p.Value.Name] = true
		}
	}
	for name := range req.URL.Query() {
		if !declared[name] {
			c.t.Errorf("%s: the client sends the query parameter %q, which the document does not declare", op, name)
		}
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	check := req.Clone(req.Context())
	check.Body = io.NopCloser(bytes.NewReader(body))
	in := &openapi3filter.RequestValidationInput{Request: check, PathParams: params, Route: route, Options: opts}
	invalid := openapi3filter.ValidateRequest(req.Context(), in)
	res, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	// A request the document calls invalid must be refused; tests send
	// some on purpose to see the client's 4xx.
	if invalid != nil && res.StatusCode < 400 {
		c.t.Errorf("%s: the server accepted (%d) a request the document says is invalid: %v\nquery: %s\nbody: %s", op, res.StatusCode, invalid, req.URL.RawQuery, body)
	}
	if c.after != nil {
		defer c.after(op, res.StatusCode)
	}
	raw, rerr := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(raw))
	if rerr != nil {
		return res, nil
	}
	err = openapi3filter.ValidateResponse(req.Context(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(raw)), Options: opts,
	})
	if err != nil {
		c.t.Errorf("%s answered %d, which does not match the document: %v\nbody: %.400s", op, res.StatusCode, err, raw)
	}
	return res, nil
}
