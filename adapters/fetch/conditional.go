package fetch

import (
	"net/http"

	"github.com/trawlhq/trawl/ports"
)

// conditional makes a request conditional on the validators of a cached
// response: an unchanged page answers 304 with no body.
func conditional(h http.Header, r ports.FetchRequest) {
	if r.IfNoneMatch != "" {
		h.Set("If-None-Match", r.IfNoneMatch)
	}
	if r.IfModifiedSince != "" {
		h.Set("If-Modified-Since", r.IfModifiedSince)
	}
}

// validators are the response's ETag and Last-Modified, bounded: a header
// longer than a validator can sensibly be is not kept.
func validators(h http.Header) (etag, lastModified string) {
	const max = 512
	if v := h.Get("ETag"); len(v) <= max {
		etag = v
	}
	if v := h.Get("Last-Modified"); len(v) <= max {
		lastModified = v
	}
	return etag, lastModified
}
