package apitest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/trawlhq/trawl/adapters/httpapi"
)

func init() {
	// HTML pages are checked for their status and content type; their body is text.
	openapi3filter.RegisterBodyDecoder("text/html", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(body)
		return string(b), err
	})
}

var (
	routerOnce sync.Once
	router     routers.Router
	routerErr  error
)

func openapiRouter() (routers.Router, error) {
	routerOnce.Do(func() {
		doc, _, err := httpapi.OpenAPI()
		if err != nil {
			routerErr = err
			return
		}
		d := *doc
		d.Servers = nil // match any host: tests run on random ports
		router, routerErr = legacy.NewRouter(&d)
	})
	return router, routerErr
}

// unchecked: paths outside the JSON API's document (routes tests mount for
// themselves, the RPC surface) and binary downloads.
func unchecked(path string) bool {
	for _, p := range []string{"/v1/test-", "/trawl.v1.", "/grpc.", "/files/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// checkOpenAPI validates a response against the OpenAPI document, so the
// document cannot drift from what the API answers.
func checkOpenAPI(t testing.TB, req *http.Request, res Response) {
	t.Helper()
	if unchecked(req.URL.Path) {
		return
	}
	r, err := openapiRouter()
	if err != nil {
		t.Fatalf("OpenAPI document: %v", err)
	}
	route, params, err := r.FindRoute(req)
	if err != nil {
		var re *routers.RouteError
		unrouted := errors.As(err, &re) && (re.Reason == routers.ErrPathNotFound.Error() || re.Reason == routers.ErrMethodNotAllowed.Error())
		if unrouted && (res.Status == http.StatusNotFound || res.Status == http.StatusMethodNotAllowed) {
			if !bytes.Contains(res.Body, []byte(`"message"`)) {
				t.Errorf("%s %s: %d without a message body", req.Method, req.URL.Path, res.Status)
			}
			return
		}
		t.Errorf("%s %s answered %d but the OpenAPI document has no such operation: %v", req.Method, req.URL.Path, res.Status, err)
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.Status, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Body)), Options: opts,
	})
	if err != nil {
		body := string(res.Body)
		if len(body) > 400 {
			body = body[:400] + "…"
		}
		t.Errorf("%s %s answered %d, which does not match the OpenAPI document: %v\nbody: %s", req.Method, req.URL.Path, res.Status, err, body)
	}
}
