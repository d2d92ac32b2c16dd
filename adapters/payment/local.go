// Package payment holds payment providers. Local is the embedded default: its
// hosted checkout is a page of Trawl itself (/checkout/{session_id}) whose Pay
// button completes the session. It takes no money; it lets an operator run
// the whole top-up flow without an external provider.
package payment

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Local is the embedded payment provider.
type Local struct {
	store     ports.LedgerStore
	clock     ports.Clock
	publicURL string
}

var _ ports.PaymentProvider = (*Local)(nil)

// NewLocal builds the provider; publicURL is the server's external base URL.
func NewLocal(store ports.LedgerStore, clock ports.Clock, publicURL string) (*Local, error) {
	if store == nil || clock == nil || publicURL == "" {
		return nil, errors.New("payment.NewLocal: store, clock and public URL are required")
	}
	return &Local{store: store, clock: clock, publicURL: strings.TrimRight(publicURL, "/")}, nil
}

// CreateCheckout stores a session and points at the local checkout page.
func (l *Local) CreateCheckout(ctx context.Context, r ports.CheckoutRequest) (ports.Checkout, error) {
	var b [18]byte
	if _, err := rand.Read(b[:]); err != nil {
		return ports.Checkout{}, failure.Wrap("payment.CreateCheckout", err)
	}
	id := "cs_local_" + hex.EncodeToString(b[:])
	err := l.store.CreateCheckoutSession(ctx, ports.CheckoutSession{
		ID: id, AccountID: r.AccountID, Credits: r.Credits, AmountCents: r.AmountCents, Currency: r.Currency, CreatedAt: l.clock.Now(),
	})
	if err != nil {
		return ports.Checkout{}, failure.Wrap("payment.CreateCheckout", err)
	}
	return ports.Checkout{SessionID: id, URL: l.publicURL + "/checkout/" + id}, nil
}
