package memstore

import (
	"context"
	"sort"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var _ ports.CredentialStore = (*Store)(nil)

type credentials struct {
	passwords map[int64]string
	sessions  map[string]ports.Session
	links     map[string]ports.EmailToken
}

// creds returns the sign-in state, made on first use; s.mu must be held.
func (s *Store) creds() *credentials {
	if s.cred.passwords == nil {
		s.cred = credentials{passwords: map[int64]string{}, sessions: map[string]ports.Session{}, links: map[string]ports.EmailToken{}}
	}
	return &s.cred
}

// SetPasswordHash implements ports.CredentialStore.
func (s *Store) SetPasswordHash(_ context.Context, accountID int64, hash string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[accountID]; !ok {
		return failure.E("memstore.SetPasswordHash", failure.NotFound, "account not found")
	}
	s.creds().passwords[accountID] = hash
	return nil
}

// PasswordHash implements ports.CredentialStore.
func (s *Store) PasswordHash(_ context.Context, accountID int64) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h, ok := s.creds().passwords[accountID]
	if !ok || s.d.accounts[accountID].ID == 0 {
		return "", failure.E("memstore.PasswordHash", failure.NotFound, "password not found")
	}
	return h, nil
}

// MarkEmailVerified implements ports.CredentialStore.
func (s *Store) MarkEmailVerified(_ context.Context, accountID int64, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.d.accounts[accountID]
	if !ok || a.EmailVerifiedAt != nil {
		return nil
	}
	a.EmailVerifiedAt, a.UpdatedAt = truncPtr(&at), trunc(at)
	s.d.accounts[accountID] = a
	return nil
}

// CreateSession implements ports.CredentialStore.
func (s *Store) CreateSession(_ context.Context, x ports.Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[x.AccountID]; !ok {
		return failure.E("memstore.CreateSession", failure.NotFound, "account not found")
	}
	if _, dup := s.creds().sessions[x.Hash]; dup {
		return failure.E("memstore.CreateSession", failure.Conflict, "session exists")
	}
	x.CreatedAt, x.ExpiresAt = trunc(x.CreatedAt), trunc(x.ExpiresAt)
	for h, old := range s.creds().sessions {
		if old.AccountID == x.AccountID && !old.ExpiresAt.After(x.CreatedAt) {
			delete(s.creds().sessions, h)
		}
	}
	s.creds().sessions[x.Hash] = x
	return nil
}

// Session implements ports.CredentialStore.
func (s *Store) Session(_ context.Context, hash string, now time.Time) (ports.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.creds().sessions[hash]
	if !ok || !x.ExpiresAt.After(trunc(now)) || s.d.accounts[x.AccountID].ID == 0 {
		return ports.Session{}, failure.E("memstore.Session", failure.NotFound, "session not found")
	}
	return x, nil
}

// DeleteSession implements ports.CredentialStore.
func (s *Store) DeleteSession(_ context.Context, hash string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.creds().sessions, hash)
	return nil
}

// DeleteAccountSessions implements ports.CredentialStore.
func (s *Store) DeleteAccountSessions(_ context.Context, accountID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, x := range s.creds().sessions {
		if x.AccountID == accountID {
			delete(s.creds().sessions, h)
		}
	}
	return nil
}

// PutEmailToken implements ports.CredentialStore.
func (s *Store) PutEmailToken(_ context.Context, t ports.EmailToken) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[t.AccountID]; !ok {
		return failure.E("memstore.PutEmailToken", failure.NotFound, "account not found")
	}
	t.CreatedAt, t.ExpiresAt = trunc(t.CreatedAt), trunc(t.ExpiresAt)
	for h, old := range s.creds().links {
		if old.AccountID == t.AccountID && !old.ExpiresAt.After(t.CreatedAt) {
			delete(s.creds().links, h)
		}
	}
	s.creds().links[t.Hash] = t
	return nil
}

// UseEmailToken implements ports.CredentialStore.
func (s *Store) UseEmailToken(_ context.Context, hash string, purpose ports.EmailPurpose, now time.Time) (ports.EmailToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.creds().links[hash]
	if !ok || t.Purpose != purpose || !t.ExpiresAt.After(trunc(now)) || s.d.accounts[t.AccountID].ID == 0 {
		return ports.EmailToken{}, failure.E("memstore.UseEmailToken", failure.NotFound, "email token not found")
	}
	delete(s.creds().links, hash)
	return t, nil
}

var _ ports.JobLister = (*Store)(nil)

// ListJobs implements ports.JobLister.
func (s *Store) ListJobs(_ context.Context, accountID int64, limit, offset int) ([]ports.JobSummary, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []ports.JobSummary
	for _, j := range s.d.jobs {
		if j.AccountID != accountID {
			continue
		}
		sum := ports.JobSummary{Job: j}
		for _, u := range s.d.jobURLs[j.ID] {
			switch u.Status {
			case ports.URLSucceeded:
				sum.Succeeded++
			case ports.URLFailed:
				sum.Failed++
			}
		}
		for _, d := range s.d.deliveries {
			if d.JobID == j.ID {
				sum.Deliveries++
			}
		}
		all = append(all, sum)
	}
	sort.Slice(all, func(a, b int) bool {
		x, y := all[a].Job, all[b].Job
		if !x.QueuedAt.Equal(y.QueuedAt) {
			return x.QueuedAt.After(y.QueuedAt)
		}
		return x.ID > y.ID
	})
	total := len(all)
	if offset >= total {
		return nil, total, nil
	}
	return all[offset:min(total, offset+limit)], total, nil
}

var _ ports.PaymentEventStore = (*Store)(nil)

type paymentState struct {
	events map[string]bool
	subs   map[int64]ports.Subscription
	plans  map[string]ports.PlanCheckoutSession
}

func (s *Store) payments() *paymentState {
	if s.pay.events == nil {
		s.pay = paymentState{events: map[string]bool{}, subs: map[int64]ports.Subscription{}}
	}
	return &s.pay
}

// RecordPaymentEvent implements ports.PaymentEventStore.
func (s *Store) RecordPaymentEvent(_ context.Context, provider, eventID string, _ time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := provider + "\x00" + eventID
	if s.payments().events[k] {
		return false, nil
	}
	s.payments().events[k] = true
	return true, nil
}

// ForgetPaymentEvent implements ports.PaymentEventStore.
func (s *Store) ForgetPaymentEvent(_ context.Context, provider, eventID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.payments().events, provider+"\x00"+eventID)
	return nil
}

// Subscription implements ports.PaymentEventStore.
func (s *Store) Subscription(_ context.Context, accountID int64) (ports.Subscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.payments().subs[accountID]
	if !ok || s.d.accounts[accountID].ID == 0 {
		return ports.Subscription{}, failure.E("memstore.Subscription", failure.NotFound, "subscription not found")
	}
	return x, nil
}

// SaveSubscription implements ports.PaymentEventStore.
func (s *Store) SaveSubscription(_ context.Context, x ports.Subscription) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[x.AccountID]; !ok {
		return failure.E("memstore.SaveSubscription", failure.NotFound, "account not found")
	}
	x.EventAt = trunc(x.EventAt)
	s.payments().subs[x.AccountID] = x
	return nil
}

var _ ports.PlanCheckoutStore = (*Store)(nil)

// CreatePlanCheckout implements ports.PlanCheckoutStore.
func (s *Store) CreatePlanCheckout(_ context.Context, x ports.PlanCheckoutSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[x.AccountID]; !ok {
		return failure.E("memstore.CreatePlanCheckout", failure.NotFound, "account not found")
	}
	if s.payments().plans == nil {
		s.payments().plans = map[string]ports.PlanCheckoutSession{}
	}
	if _, dup := s.payments().plans[x.ID]; dup {
		return failure.E("memstore.CreatePlanCheckout", failure.Conflict, "plan checkout exists")
	}
	x.CreatedAt, x.PaidAt = trunc(x.CreatedAt), truncPtr(x.PaidAt)
	s.payments().plans[x.ID] = x
	return nil
}

// PlanCheckoutSession implements ports.PlanCheckoutStore.
func (s *Store) PlanCheckoutSession(_ context.Context, id string) (ports.PlanCheckoutSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.payments().plans[id]
	if !ok {
		return ports.PlanCheckoutSession{}, failure.E("memstore.PlanCheckoutSession", failure.NotFound, "plan checkout not found")
	}
	return x, nil
}

// MarkPlanCheckoutPaid implements ports.PlanCheckoutStore.
func (s *Store) MarkPlanCheckoutPaid(_ context.Context, id string, at time.Time) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.payments().plans[id]
	if !ok || x.PaidAt != nil {
		return false, nil
	}
	x.PaidAt = truncPtr(&at)
	s.payments().plans[id] = x
	return true, nil
}
