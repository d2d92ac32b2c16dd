package bulk

import (
	"context"
	"errors"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Secrets shows and rotates an account's webhook signing secret.
type Secrets struct{ accounts ports.AccountStore }

// NewSecrets builds the use case.
func NewSecrets(accounts ports.AccountStore) (*Secrets, error) {
	if accounts == nil {
		return nil, errors.New("bulk.NewSecrets: accounts is required")
	}
	return &Secrets{accounts: accounts}, nil
}

// Show returns the account's secret, made on first use (as the worker
// does before a delivery).
func (s *Secrets) Show(ctx context.Context, accountID int64) (string, error) {
	sec, err := s.accounts.WebhookSecret(ctx, accountID, NewWebhookSecret)
	return sec, failure.Wrap("bulk.Secrets.Show", err)
}

// Rotate replaces the account's secret: every delivery from now on is
// signed with the new one.
func (s *Secrets) Rotate(ctx context.Context, accountID int64) (string, error) {
	sec := NewWebhookSecret()
	if err := s.accounts.SetWebhookSecret(ctx, accountID, sec); err != nil {
		return "", failure.Wrap("bulk.Secrets.Rotate", err)
	}
	return sec, nil
}
