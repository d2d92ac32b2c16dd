// Package memstore is an in-memory implementation of Trawl's store ports: a
// stateful fake for tests and for embedding Trawl without a database. It runs
// the same contract suites as the SQL store, so it behaves like one.
package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

type data struct {
	accounts     map[int64]ports.Account
	credits      map[int64]ports.CreditState
	tokens       map[int64]ports.Token
	holds        map[string]ports.Hold
	transactions []ports.Transaction
	sessions     map[string]ports.CheckoutSession
	idem         map[string]ports.IdempotencyRecord
	jobs         map[string]ports.BulkJob
	jobURLs      map[string][]ports.BulkURL
	deliveries   []ports.DeliveryAttempt
	secrets      map[int64]string
	nextID       int64
}

func (d *data) clone() *data {
	c := *d
	c.accounts = maps.Clone(d.accounts)
	c.credits = maps.Clone(d.credits)
	c.tokens = maps.Clone(d.tokens)
	c.holds = maps.Clone(d.holds)
	c.transactions = slices.Clone(d.transactions)
	c.sessions = maps.Clone(d.sessions)
	c.idem = maps.Clone(d.idem)
	c.jobs = maps.Clone(d.jobs)
	c.jobURLs = maps.Clone(d.jobURLs)
	c.secrets = maps.Clone(d.secrets)
	c.deliveries = slices.Clone(d.deliveries)
	return &c
}

// Store is the in-memory store. One mutex makes every operation atomic.
type Store struct {
	mu   sync.Mutex
	d    *data
	cred credentials  // dashboard sign-in state (dashboard.go)
	pay  paymentState // payment provider events (dashboard.go)
	cr   crawlState   // crawls, robots.txt and host slots (crawl.go)
	pc   pageCache    // the page cache's index (cache.go)
	sn   snapshots    // change tracking's snapshots (snapshots.go)
	mon  monitorState // monitors and their checks (monitors.go)
}

var (
	_ ports.AccountStore     = (*Store)(nil)
	_ ports.TokenStore       = (*Store)(nil)
	_ ports.LedgerStore      = (*Store)(nil)
	_ ports.IdempotencyStore = (*Store)(nil)
)

// New returns an empty store.
func New() *Store {
	return &Store{d: &data{
		accounts: map[int64]ports.Account{}, credits: map[int64]ports.CreditState{}, tokens: map[int64]ports.Token{},
		holds: map[string]ports.Hold{}, sessions: map[string]ports.CheckoutSession{}, idem: map[string]ports.IdempotencyRecord{},
		jobs: map[string]ports.BulkJob{}, jobURLs: map[string][]ports.BulkURL{}, secrets: map[int64]string{},
	}}
}

// Times are kept at millisecond precision, as the SQL store keeps them.
func trunc(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

func truncPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := trunc(*t)
	return &v
}

func (s *Store) id() int64 { s.d.nextID++; return s.d.nextID }

func (s *Store) withAccount(a ports.Account) ports.Account {
	a.Plan = s.d.credits[a.ID].Plan
	return a
}

// CreateAccount implements ports.AccountStore.
func (s *Store) CreateAccount(_ context.Context, a ports.Account) (ports.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.d.accounts {
		if x.Email == a.Email {
			return ports.Account{}, failure.E("memstore.CreateAccount", failure.Conflict, "an account with this email already exists")
		}
	}
	a.ID = s.id()
	a.CreatedAt, a.UpdatedAt, a.EmailVerifiedAt = trunc(a.CreatedAt), trunc(a.UpdatedAt), truncPtr(a.EmailVerifiedAt)
	s.d.accounts[a.ID] = a
	st := ports.CreditState{AccountID: a.ID, Plan: a.Plan}
	if a.Plan != "" {
		st.PlanAnchor, st.PeriodStart = &a.CreatedAt, &a.CreatedAt
	}
	s.d.credits[a.ID] = st
	return a, nil
}

// AccountByID implements ports.AccountStore.
func (s *Store) AccountByID(_ context.Context, id int64) (ports.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.d.accounts[id]
	if !ok {
		return ports.Account{}, failure.E("memstore.AccountByID", failure.NotFound, "account not found")
	}
	return s.withAccount(a), nil
}

// AccountByEmail implements ports.AccountStore.
func (s *Store) AccountByEmail(_ context.Context, email string) (ports.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.d.accounts {
		if a.Email == email {
			return s.withAccount(a), nil
		}
	}
	return ports.Account{}, failure.E("memstore.AccountByEmail", failure.NotFound, "account not found")
}

// ListAccounts implements ports.AccountStore.
func (s *Store) ListAccounts(context.Context) ([]ports.Account, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ports.Account, 0, len(s.d.accounts))
	for _, a := range s.d.accounts {
		out = append(out, s.withAccount(a))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// CountAccounts implements ports.AccountStore.
func (s *Store) CountAccounts(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.d.accounts), nil
}

// DeleteAccount removes an account and everything it owns (tests use it to
// reach the "account not found" answers).
func (s *Store) DeleteAccount(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.d.accounts, id)
	delete(s.d.credits, id)
	for tid, t := range s.d.tokens {
		if t.AccountID == id {
			delete(s.d.tokens, tid)
		}
	}
}

// CreateToken implements ports.TokenStore.
func (s *Store) CreateToken(_ context.Context, t ports.Token, maxActive int) (ports.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[t.AccountID]; !ok {
		return ports.Token{}, failure.E("memstore.CreateToken", failure.NotFound, "account not found")
	}
	n := 0
	for _, x := range s.d.tokens {
		if x.AccountID == t.AccountID {
			n++
		}
		if x.Hash == t.Hash {
			return ports.Token{}, failure.E("memstore.CreateToken", failure.Conflict, "token exists")
		}
	}
	if n >= maxActive {
		return ports.Token{}, failure.E("memstore.CreateToken", failure.Conflict, "token limit reached")
	}
	t.ID = s.id()
	t.CreatedAt = trunc(t.CreatedAt)
	t.LastUsedAt = truncPtr(t.LastUsedAt)
	s.d.tokens[t.ID] = t
	return t, nil
}

// PrincipalByTokenHash implements ports.TokenStore.
func (s *Store) PrincipalByTokenHash(_ context.Context, hash string) (ports.Principal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.d.tokens {
		if t.Hash == hash {
			a, ok := s.d.accounts[t.AccountID]
			if !ok {
				break
			}
			return ports.Principal{Account: s.withAccount(a).Caller(), Token: t.Caller(), Credits: s.d.credits[a.ID]}, nil
		}
	}
	return ports.Principal{}, failure.E("memstore.PrincipalByTokenHash", failure.NotFound, "token not found")
}

// ListTokens implements ports.TokenStore.
func (s *Store) ListTokens(_ context.Context, accountID int64) ([]ports.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []ports.Token{}
	for _, t := range s.d.tokens {
		if t.AccountID == accountID {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// DeleteToken implements ports.TokenStore.
func (s *Store) DeleteToken(_ context.Context, accountID, tokenID int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.d.tokens[tokenID]
	if !ok || t.AccountID != accountID {
		return failure.E("memstore.DeleteToken", failure.NotFound, "token not found")
	}
	delete(s.d.tokens, tokenID)
	return nil
}

// TouchToken implements ports.TokenStore.
func (s *Store) TouchToken(_ context.Context, tokenID int64, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.d.tokens[tokenID]; ok {
		v := trunc(at)
		t.LastUsedAt = &v
		s.d.tokens[tokenID] = t
	}
	return nil
}

// WithCredits implements ports.LedgerStore: fn sees a copy of the data and
// its changes are kept only if it returns nil.
func (s *Store) WithCredits(ctx context.Context, accountID int64, fn func(ports.LedgerTx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	st, ok := s.d.credits[accountID]
	if !ok {
		return failure.E("memstore.WithCredits", failure.NotFound, "account not found")
	}
	work := s.d.clone()
	tx := &ledgerTx{d: work, state: st, s: s}
	if err := fn(tx); err != nil {
		return err
	}
	for _, o := range tx.outcomes {
		if _, err := s.finishCrawlPage(o); err != nil {
			return err
		}
	}
	s.d = work
	return nil
}

type ledgerTx struct {
	s     *Store
	d     *data
	state ports.CreditState
	// outcomes are the crawl pages written when fn succeeds.
	outcomes []ports.CrawlOutcome
}

func (l *ledgerTx) FinishCrawlPage(o ports.CrawlOutcome) error {
	if _, err := l.s.crawlOf(o.URL.CrawlID); err != nil {
		return err
	}
	l.outcomes = append(l.outcomes, o)
	return nil
}

func (l *ledgerTx) State() ports.CreditState { return l.state }

func (l *ledgerTx) SaveState(c ports.CreditState) error {
	c.PlanAnchor, c.PeriodStart = truncPtr(c.PlanAnchor), truncPtr(c.PeriodStart)
	if c.TopUp < 0 {
		return failure.E("memstore.SaveState", failure.Internal, "negative top-up")
	}
	l.d.credits[l.state.AccountID] = c
	l.state = c
	return nil
}

func (l *ledgerTx) HeldAmount(now time.Time) (int64, error) {
	var n int64
	for _, h := range l.d.holds {
		if h.AccountID == l.state.AccountID && h.ExpiresAt.After(now) {
			n += h.Amount
		}
	}
	return n, nil
}

func (l *ledgerTx) DeleteExpiredHolds(now time.Time) error {
	for id, h := range l.d.holds {
		if h.AccountID == l.state.AccountID && !h.ExpiresAt.After(now) {
			delete(l.d.holds, id)
		}
	}
	return nil
}

func (l *ledgerTx) PutHold(h ports.Hold) error {
	h.CreatedAt, h.ExpiresAt = trunc(h.CreatedAt), trunc(h.ExpiresAt)
	l.d.holds[h.ID] = h
	return nil
}

func (l *ledgerTx) Hold(id string) (ports.Hold, error) {
	h, ok := l.d.holds[id]
	if !ok || h.AccountID != l.state.AccountID {
		return ports.Hold{}, failure.E("memstore.Hold", failure.NotFound, "hold not found")
	}
	return h, nil
}

func (l *ledgerTx) DeleteHold(id string) error {
	if _, err := l.Hold(id); err != nil {
		return err
	}
	delete(l.d.holds, id)
	return nil
}

func (l *ledgerTx) UpdateHold(id string, amount int64) error {
	h, err := l.Hold(id)
	if err != nil {
		return err
	}
	h.Amount = amount
	l.d.holds[id] = h
	return nil
}

func (l *ledgerTx) Charged(key string) (bool, error) {
	for _, t := range l.d.transactions {
		if t.AccountID == l.state.AccountID && t.ChargeKey != "" && t.ChargeKey == key {
			return true, nil
		}
	}
	return false, nil
}

func (l *ledgerTx) TokenLive(tokenID int64) (bool, error) {
	t, ok := l.d.tokens[tokenID]
	return ok && t.AccountID == l.state.AccountID, nil
}

func (l *ledgerTx) DropHold(holdID string, tokenID int64, now time.Time) (bool, int64, error) {
	if err := l.DeleteHold(holdID); err != nil && !failure.Is(err, failure.NotFound) {
		return false, 0, err
	}
	live := true
	if tokenID != 0 {
		live, _ = l.TokenLive(tokenID)
	}
	held, err := l.HeldAmount(now)
	return live, held, err
}

func (l *ledgerTx) AddTransaction(t ports.Transaction) (ports.Transaction, error) {
	if t.BalanceAfter < 0 {
		return t, failure.E("memstore.AddTransaction", failure.Internal, "negative balance")
	}
	if t.ChargeKey != "" {
		if done, _ := l.Charged(t.ChargeKey); done {
			return t, failure.E("memstore.AddTransaction", failure.Conflict, "already charged")
		}
	}
	l.d.nextID++
	t.ID = l.d.nextID
	t.AccountID = l.state.AccountID
	t.CreatedAt = trunc(t.CreatedAt)
	l.d.transactions = append(l.d.transactions, t)
	return t, nil
}

func (l *ledgerTx) MarkCheckoutPaid(sessionID string, at time.Time) (bool, error) {
	cs, ok := l.d.sessions[sessionID]
	if !ok || cs.AccountID != l.state.AccountID || cs.PaidAt != nil {
		return false, nil
	}
	v := trunc(at)
	cs.PaidAt = &v
	l.d.sessions[sessionID] = cs
	return true, nil
}

// Transactions implements ports.LedgerStore.
func (s *Store) Transactions(_ context.Context, accountID int64, limit, offset int) ([]ports.Transaction, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var mine []ports.Transaction
	for i := len(s.d.transactions) - 1; i >= 0; i-- {
		if s.d.transactions[i].AccountID == accountID {
			mine = append(mine, s.d.transactions[i])
		}
	}
	total := len(mine)
	if offset >= total {
		return []ports.Transaction{}, total, nil
	}
	return mine[offset:min(total, offset+limit)], total, nil
}

// ReadCredits implements ports.LedgerStore.
func (s *Store) ReadCredits(_ context.Context, accountID int64, now time.Time) (ports.CreditState, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.d.credits[accountID]
	if !ok {
		return ports.CreditState{}, 0, failure.E("memstore.ReadCredits", failure.NotFound, "account not found")
	}
	held, _ := (&ledgerTx{d: s.d, state: st}).HeldAmount(now)
	return st, held, nil
}

// CreateCheckoutSession implements ports.LedgerStore.
func (s *Store) CreateCheckoutSession(_ context.Context, cs ports.CheckoutSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.sessions[cs.ID]; ok {
		return failure.E("memstore.CreateCheckoutSession", failure.Conflict, "session exists")
	}
	cs.CreatedAt = trunc(cs.CreatedAt)
	s.d.sessions[cs.ID] = cs
	return nil
}

// CheckoutSession implements ports.LedgerStore.
func (s *Store) CheckoutSession(_ context.Context, id string) (ports.CheckoutSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.d.sessions[id]
	if !ok {
		return ports.CheckoutSession{}, failure.E("memstore.CheckoutSession", failure.NotFound, "checkout session not found")
	}
	return cs, nil
}

func idemKey(accountID int64, key string) string { return fmt.Sprintf("%d\x00%s", accountID, key) }

// BeginIdempotent implements ports.IdempotencyStore.
func (s *Store) BeginIdempotent(_ context.Context, rec ports.IdempotencyRecord) (ports.IdempotencyRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idemKey(rec.AccountID, rec.Key)
	if old, ok := s.d.idem[k]; ok && old.ExpiresAt.After(rec.CreatedAt) {
		return old, false, nil
	}
	rec.Done = false
	rec.CreatedAt, rec.ExpiresAt = trunc(rec.CreatedAt), trunc(rec.ExpiresAt)
	s.d.idem[k] = rec
	return ports.IdempotencyRecord{}, true, nil
}

// CompleteIdempotent implements ports.IdempotencyStore.
func (s *Store) CompleteIdempotent(_ context.Context, accountID int64, key string, status int, contentType string, body []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idemKey(accountID, key)
	if rec, ok := s.d.idem[k]; ok {
		rec.Done, rec.Status, rec.ContentType, rec.Body = true, status, contentType, slices.Clone(body)
		s.d.idem[k] = rec
	}
	return nil
}

// AbandonIdempotent implements ports.IdempotencyStore.
func (s *Store) AbandonIdempotent(_ context.Context, accountID int64, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := idemKey(accountID, key)
	if rec, ok := s.d.idem[k]; ok && !rec.Done {
		delete(s.d.idem, k)
	}
	return nil
}

var _ ports.JobStore = (*Store)(nil)

// CreateJob implements ports.JobStore.
func (s *Store) CreateJob(_ context.Context, j ports.BulkJob, urls []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.createJob(j, urls)
}

// createJob adds a job and its URLs; s.mu is held.
func (s *Store) createJob(j ports.BulkJob, urls []string) error {
	if _, ok := s.d.jobs[j.ID]; ok {
		return failure.E("memstore.CreateJob", failure.Conflict, "job exists")
	}
	j.URLsCount = len(urls)
	if j.Kind == "" {
		j.Kind = ports.KindBulk
	}
	j.QueuedAt, j.LeaseUntil, j.StartedAt = trunc(j.QueuedAt), trunc(j.LeaseUntil), truncPtr(j.StartedAt)
	s.d.jobs[j.ID] = j
	list := make([]ports.BulkURL, len(urls))
	for i, u := range urls {
		list[i] = ports.BulkURL{JobID: j.ID, Index: i, URL: u, Status: ports.URLPending}
	}
	s.d.jobURLs[j.ID] = list
	return nil
}

// Job implements ports.JobStore.
func (s *Store) Job(_ context.Context, id string) (ports.BulkJob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.d.jobs[id]
	if !ok {
		return ports.BulkJob{}, failure.E("memstore.Job", failure.NotFound, "job not found")
	}
	return j, nil
}

// JobURLs implements ports.JobStore.
func (s *Store) JobURLs(_ context.Context, id string) ([]ports.BulkURL, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d.jobURLs[id]), nil
}

// ClaimJob implements ports.JobStore.
func (s *Store) ClaimJob(_ context.Context, owner string, now time.Time, lease time.Duration) (ports.BulkJob, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *ports.BulkJob
	for _, j := range s.d.jobs {
		if (j.Status == ports.JobQueued || j.Status == ports.JobProcessing) && j.LeaseUntil.Before(now) {
			if best == nil || j.QueuedAt.Before(best.QueuedAt) || (j.QueuedAt.Equal(best.QueuedAt) && j.ID < best.ID) {
				jj := j
				best = &jj
			}
		}
	}
	if best == nil {
		return ports.BulkJob{}, false, nil
	}
	best.Status, best.LeaseOwner, best.LeaseUntil = ports.JobProcessing, owner, trunc(now.Add(lease))
	if best.StartedAt == nil {
		t := trunc(now)
		best.StartedAt = &t
	}
	s.d.jobs[best.ID] = *best
	return *best, true, nil
}

// RenewLease implements ports.JobStore.
func (s *Store) RenewLease(_ context.Context, jobID, owner string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.d.jobs[jobID]
	if !ok || j.LeaseOwner != owner || j.Status != ports.JobProcessing {
		return failure.E("memstore.RenewLease", failure.Conflict, "lease lost")
	}
	j.LeaseUntil = trunc(until)
	s.d.jobs[jobID] = j
	return nil
}

// FinishURL implements ports.JobStore.
func (s *Store) FinishURL(_ context.Context, u ports.BulkURL) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := slices.Clone(s.d.jobURLs[u.JobID])
	if u.Index < 0 || u.Index >= len(list) {
		return failure.E("memstore.FinishURL", failure.NotFound, "url not found")
	}
	u.URL = list[u.Index].URL
	u.Content = slices.Clone(u.Content)
	u.FinishedAt = truncPtr(u.FinishedAt)
	list[u.Index] = u
	s.d.jobURLs[u.JobID] = list
	return nil
}

// FinishJob implements ports.JobStore.
func (s *Store) FinishJob(_ context.Context, j ports.BulkJob, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.d.jobs[j.ID]
	if !ok || cur.LeaseOwner != owner || cur.Status != ports.JobProcessing {
		return failure.E("memstore.FinishJob", failure.Conflict, "lease lost")
	}
	cur.Status, cur.Error, cur.ArchiveKey = j.Status, j.Error, j.ArchiveKey
	cur.CompletedAt, cur.FailedAt = truncPtr(j.CompletedAt), truncPtr(j.FailedAt)
	cur.LeaseOwner, cur.LeaseUntil = "", time.UnixMilli(0).UTC()
	s.d.jobs[j.ID] = cur
	return nil
}

// RecordDelivery implements ports.JobStore.
func (s *Store) RecordDelivery(_ context.Context, a ports.DeliveryAttempt) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.At = trunc(a.At)
	a.Duration = a.Duration.Truncate(time.Millisecond)
	s.d.deliveries = append(s.d.deliveries, a)
	return nil
}

// Deliveries implements ports.JobStore.
func (s *Store) Deliveries(_ context.Context, jobID string) ([]ports.DeliveryAttempt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.DeliveryAttempt
	for _, a := range s.d.deliveries {
		if a.JobID == jobID {
			out = append(out, a)
		}
	}
	return out, nil
}

// PendingURLs implements ports.JobStore.
func (s *Store) PendingURLs(context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, j := range s.d.jobs {
		if j.Status != ports.JobQueued && j.Status != ports.JobProcessing {
			continue
		}
		for _, u := range s.d.jobURLs[id] {
			if u.Status == ports.URLPending {
				n++
			}
		}
	}
	return n, nil
}

// WebhookSecret implements ports.AccountStore.
func (s *Store) WebhookSecret(_ context.Context, accountID int64, newSecret func() string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[accountID]; !ok {
		return "", failure.E("memstore.WebhookSecret", failure.NotFound, "account not found")
	}
	if sec := s.d.secrets[accountID]; sec != "" {
		return sec, nil
	}
	sec := newSecret()
	s.d.secrets[accountID] = sec
	return sec, nil
}

// SetWebhookSecret implements ports.AccountStore.
func (s *Store) SetWebhookSecret(_ context.Context, accountID int64, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.d.accounts[accountID]; !ok {
		return failure.E("memstore.SetWebhookSecret", failure.NotFound, "account not found")
	}
	s.d.secrets[accountID] = secret
	return nil
}
