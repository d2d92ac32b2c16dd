// Package idempotency makes billed calls safe to retry: a call made with an
// Idempotency-Key stores its successful response for 24 hours, and a retry
// with the same key and the same request gets that response again without a
// second charge.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// TTL is how long a stored response is replayed.
const TTL = 24 * time.Hour

// MaxKeyLen bounds the key.
const MaxKeyLen = 255

// Header is the request header carrying the key.
const Header = "Idempotency-Key"

// ValidKey: 1 to 255 printable ASCII characters.
func ValidKey(key string) bool {
	if len(key) == 0 || len(key) > MaxKeyLen {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// Fingerprint identifies a request: the same key must come with the same request.
func Fingerprint(method, path, rawQuery string, body []byte) string {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(method), []byte(path), []byte(rawQuery), body} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Service applies the idempotency rules over a store.
type Service struct {
	store ports.IdempotencyStore
	clock ports.Clock
	// settleFor bounds how long Complete and Abandon keep trying while the
	// store is temporarily unavailable; settlePause is the first wait.
	settleFor, settlePause time.Duration
}

// Option adjusts a service.
type Option func(*Service)

// WithRetry sets how long Complete and Abandon keep trying while the store
// is temporarily unavailable (default 10 s), and the first wait between
// tries (default 100 ms; it doubles, up to a second).
func WithRetry(within, firstPause time.Duration) Option {
	return func(s *Service) {
		if within > 0 {
			s.settleFor = within
		}
		if firstPause > 0 {
			s.settlePause = firstPause
		}
	}
}

// NewService builds the service.
func NewService(store ports.IdempotencyStore, clock ports.Clock, opts ...Option) (*Service, error) {
	if store == nil || clock == nil {
		return nil, errors.New("idempotency.NewService: store and clock are required")
	}
	s := &Service{store: store, clock: clock, settleFor: 10 * time.Second, settlePause: 100 * time.Millisecond}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// settle runs the write that ends a claim. A claim left open answers every
// retry with the same key "still in progress" until it expires, so the
// write outlives the request's context and rides out a busy store.
func (s *Service) settle(ctx context.Context, write func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.settleFor)
	defer cancel()
	_, err := failure.UntilAvailable(ctx, s.settlePause, write)
	return err
}

// Begin claims a key for a request. It returns the stored response when the
// key was already used by the same request and it completed (replay), a
// Conflict when that request is still running, and an Invalid error when the
// key was used by a different request.
func (s *Service) Begin(ctx context.Context, accountID int64, key, fingerprint string) (replay *ports.IdempotencyRecord, err error) {
	const op = "idempotency.Begin"
	if !ValidKey(key) {
		return nil, failure.Invalidf(op, Header, "The Idempotency-Key header must be 1 to %d printable ASCII characters.", MaxKeyLen)
	}
	now := s.clock.Now()
	existing, claimed, err := s.store.BeginIdempotent(ctx, ports.IdempotencyRecord{
		AccountID: accountID, Key: key, Fingerprint: fingerprint, CreatedAt: now, ExpiresAt: now.Add(TTL),
	})
	if err != nil {
		return nil, failure.Wrap(op, err)
	}
	if claimed {
		return nil, nil
	}
	if existing.Fingerprint != fingerprint {
		return nil, failure.Invalidf(op, Header, "This Idempotency-Key was already used with a different request.")
	}
	if !existing.Done {
		return nil, failure.E(op, failure.Conflict, "A request with this Idempotency-Key is still in progress.")
	}
	return &existing, nil
}

// Complete stores the response of a claimed key.
func (s *Service) Complete(ctx context.Context, accountID int64, key string, status int, contentType string, body []byte) error {
	return failure.Wrap("idempotency.Complete", s.settle(ctx, func(ctx context.Context) error {
		return s.store.CompleteIdempotent(ctx, accountID, key, status, contentType, body)
	}))
}

// Abandon forgets a claimed key whose call failed: failed calls are not
// charged, so a retry must run again.
func (s *Service) Abandon(ctx context.Context, accountID int64, key string) error {
	return failure.Wrap("idempotency.Abandon", s.settle(ctx, func(ctx context.Context) error {
		return s.store.AbandonIdempotent(ctx, accountID, key)
	}))
}
