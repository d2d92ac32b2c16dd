// Package client is a Go client for Trawl's JSON API.
//
//	c := client.New("https://trawl.example.com", os.Getenv("TRAWL_TOKEN"))
//	page, err := c.Content(ctx, "https://example.com/blog/post")
//
// Calls are retried as the API asks (spec section 7): after Retry-After on
// 429, with exponential backoff (1 s, 2 s, 4 s, 8 s) on 5xx and network
// errors, never on 401, 402, 403, 404 or 422. Billed calls carry an
// Idempotency-Key, the same on every attempt, so a retry of a call that did
// succeed is answered from the server's record and never charged twice.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client talks to one Trawl server with one token.
type Client struct {
	base        string
	token       string
	http        *http.Client
	maxAttempts int
	backoff     time.Duration
	maxWait     time.Duration
	sleep       func(context.Context, time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (timeouts, proxies, transports).
func WithHTTPClient(h *http.Client) Option { return func(c *Client) { c.http = h } }

// WithAttempts sets how many attempts a call makes in all (default 5; 1 disables
// retries). The TypeScript and Python clients call the same option attempts.
func WithAttempts(attempts int) Option { return func(c *Client) { c.maxAttempts = max(1, attempts) } }

// WithBackoff sets the first wait between attempts after a 5xx (default 1 s, doubled each time).
func WithBackoff(d time.Duration) Option { return func(c *Client) { c.backoff = d } }

// WithMaxWait caps a single wait, Retry-After included (default 60 s).
func WithMaxWait(d time.Duration) Option { return func(c *Client) { c.maxWait = d } }

// New builds a client for baseURL (e.g. http://127.0.0.1:8080).
func New(baseURL, token string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), token: token, http: &http.Client{Timeout: 5 * time.Minute},
		maxAttempts: 5, backoff: time.Second, maxWait: time.Minute, sleep: sleepCtx}
	for _, o := range opts {
		o(c)
	}
	return c
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Error is an answer the API refused or could not give.
type Error struct {
	Status  int
	Message string
	// Errors names each invalid field (422).
	Errors map[string][]string
	// Required and Balance describe a 402 Insufficient Credits.
	Required, Balance int64
	// RetryAfter is the server's Retry-After (429).
	RetryAfter time.Duration
	RequestID  string
	// Reason is the stable code of a 503 ("captcha", "timeout", "llm_failed"...;
	// see the README), "" on other answers.
	Reason string
	// Retryable says whether the same request may succeed later; false on
	// a 503 whose reason will not go away (a captcha, a page that is not HTML).
	Retryable bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("trawl: %d %s", e.Status, e.Message)
}

// IsStatus reports whether err is an API error with that status.
func IsStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// retryable: 429 and 5xx are; 401, 402, 403, 404, 409 and 422 are not.
func retryable(status int) bool { return status == http.StatusTooManyRequests || status >= 500 }

func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "trawl-go-" + hex.EncodeToString(b[:])
}

// do sends a request with the retry policy and decodes a JSON answer into out.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, billed bool, out any) error {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return err
		}
	}
	key := ""
	if billed {
		key = newKey()
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	wait := c.backoff
	var last error
	for attempt := 1; attempt <= c.maxAttempts; attempt++ {
		var rd io.Reader
		if raw != nil {
			rd = bytes.NewReader(raw)
		}
		req, err := http.NewRequestWithContext(ctx, method, u, rd)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/json")
		if raw != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		res, err := c.http.Do(req)
		var pause time.Duration
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			last, pause = err, wait
			wait *= 2
		} else {
			data, rerr := io.ReadAll(io.LimitReader(res.Body, 64<<20))
			res.Body.Close()
			if rerr != nil {
				last, pause = rerr, wait
				wait *= 2
			} else if res.StatusCode >= 200 && res.StatusCode < 300 {
				if out == nil {
					return nil
				}
				return json.Unmarshal(data, out)
			} else {
				apiErr := decodeError(res, data)
				if !apiErr.Retryable {
					return apiErr
				}
				last = apiErr
				if apiErr.RetryAfter > 0 {
					pause = apiErr.RetryAfter
				} else {
					pause = wait
					wait *= 2
				}
			}
		}
		if attempt == c.maxAttempts {
			break
		}
		if err := c.sleep(ctx, min(pause, c.maxWait)); err != nil {
			return err
		}
	}
	return last
}

// errorBody is what an error answer may carry.
type errorBody struct {
	Message  string              `json:"message"`
	Error    string              `json:"error"`
	Errors   map[string][]string `json:"errors"`
	Required int64               `json:"required"`
	Balance  int64               `json:"balance"`
	Reason   string              `json:"reason"`
	// Retryable is absent from every answer but a 503.
	Retryable *bool `json:"retryable"`
}

func decodeError(res *http.Response, data []byte) *Error {
	e := &Error{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	var body errorBody
	if json.Unmarshal(data, &body) == nil {
		e.Message, e.Errors, e.Required, e.Balance, e.Reason = body.Message, body.Errors, body.Required, body.Balance, body.Reason
		if e.Message == "" {
			e.Message = body.Error
		}
	}
	if e.Message == "" {
		e.Message = http.StatusText(res.StatusCode)
	}
	e.Retryable = retryable(res.StatusCode)
	if body.Retryable != nil && res.StatusCode == http.StatusServiceUnavailable {
		e.Retryable = *body.Retryable // the server knows whether waiting helps
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}
