package httprec_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/trawlhq/trawl/adapters/httprec"
)

func TestRecorder(t *testing.T) {
	for _, c := range []struct {
		name   string
		handle func(w http.ResponseWriter)
		status int
		bytes  int
	}{
		{"nothing written", func(http.ResponseWriter) {}, 0, 0},
		{"status then body", func(w http.ResponseWriter) { w.WriteHeader(http.StatusTeapot); _, _ = w.Write([]byte("short")) }, http.StatusTeapot, 5},
		{"the first status stays", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound); w.WriteHeader(http.StatusOK) }, http.StatusNotFound, 0},
		{"a body without status is 200", func(w http.ResponseWriter) { _, _ = w.Write([]byte("ab")); _, _ = w.Write([]byte("cd")) }, http.StatusOK, 4},
		{"a flush without status is 200", func(w http.ResponseWriter) { w.(http.Flusher).Flush() }, http.StatusOK, 0},
		{"through http.ResponseController", func(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush() }, http.StatusOK, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			under := httptest.NewRecorder()
			rec := &httprec.Recorder{ResponseWriter: under}
			c.handle(rec)
			if rec.Status != c.status || rec.Bytes != c.bytes || rec.Bytes != under.Body.Len() {
				t.Errorf("status %d, %d bytes (%d went out); want %d, %d", rec.Status, rec.Bytes, under.Body.Len(), c.status, c.bytes)
			}
			if rec.Unwrap() != under {
				t.Error("Unwrap is not the wrapped writer")
			}
		})
	}
}
