// Package httprec records what an HTTP handler answered: the status and
// the bytes of the body written. The access log, the request metrics and
// the RPC guard each wrap a response in one, from this one type.
package httprec

import "net/http"

// Recorder is an http.ResponseWriter that remembers the first status
// written (200 once a body or a flush goes out without one) and the bytes
// of the body, and lets flushes (streamed answers) and
// http.ResponseController through.
type Recorder struct {
	http.ResponseWriter
	Status int
	Bytes  int
}

func (r *Recorder) WriteHeader(code int) {
	if r.Status == 0 {
		r.Status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *Recorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.Bytes += n
	return n, err
}

// Flush flushes the response, if it can be.
func (r *Recorder) Flush() {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
