package account

import (
	"context"
	"hash/fnv"
	"strings"
	"time"

	"github.com/trawlhq/trawl/core/auth"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/ratelimit"
	"github.com/trawlhq/trawl/ports"
)

// StrangerWindow is the period the failed sign-ins to one account are
// counted over, for strangers and for each known browser.
const StrangerWindow = time.Hour

// SignIn checks a password and opens a new session, with failed attempts
// counted as OWASP's device cookies describe: a browser that signed in to
// the account before presents its device cookie (device) and has a budget
// of its own, so failures from elsewhere can never lock it out; every other
// browser shares the account's stranger budget and its address's. Only
// failures count, never a successful sign-in. Every wrong email or password
// gets the same answer. The new session's SignedIn carries a fresh device
// cookie for the browser.
func (s *Service) SignIn(ctx context.Context, email, password, clientAddr, device string) (SignedIn, error) {
	const op = "account.SignIn"
	e, _ := auth.NormalizeEmail(email)
	if e == "" {
		e = strings.ToLower(strings.TrimSpace(email))
	}
	mu := &s.signIns[stripe(e, len(s.signIns))]
	mu.Lock()
	defer mu.Unlock()

	acct, err := s.accounts.AccountByEmail(ctx, e)
	if err != nil && !failure.Is(err, failure.NotFound) {
		return SignedIn{}, failure.Wrap(op, err)
	}
	known := err == nil
	var dev ports.EmailToken
	if known {
		dev = s.knownDevice(ctx, acct.ID, device)
	}
	// restore gives back a device cookie this attempt checked, unless the
	// sign-in succeeds and replaces it.
	restore := func() {
		if dev.Hash != "" {
			_ = s.creds.PutEmailToken(ctx, dev)
		}
	}
	budgets := []budget{
		{"signin:addr:" + clientAddr, s.o.PerAddress, s.o.ThrottleWindow},
		{"signin:account:" + e, s.o.StrangerFailures, StrangerWindow},
	}
	if dev.Hash != "" {
		budgets = []budget{{"signin:device:" + dev.Hash, s.o.DeviceFailures, StrangerWindow}}
	}
	for _, b := range budgets {
		if err := s.spent(ctx, b); err != nil {
			restore()
			return SignedIn{}, err
		}
	}
	hash := s.dummy
	if known {
		if h, herr := s.creds.PasswordHash(ctx, acct.ID); herr == nil {
			hash = h
		} else if !failure.Is(herr, failure.NotFound) {
			restore()
			return SignedIn{}, failure.Wrap(op, herr)
		}
	}
	ok, verr := s.hasher.Verify(hash, password)
	if len(password) > MaxPassword || verr != nil || !ok || !known || hash == s.dummy {
		for _, b := range budgets {
			if _, err := s.limiter.Allow(ctx, b.key, b.limit, b.window); err != nil {
				restore()
				return SignedIn{}, ratelimit.Failure(op, err)
			}
		}
		restore()
		return SignedIn{}, failure.Invalidf(op, "password", "The email or password is incorrect.")
	}
	in, err := s.openSession(ctx, acct)
	if err != nil {
		restore()
		return SignedIn{}, err
	}
	in.Device, err = s.newDevice(ctx, acct.ID)
	if err != nil {
		return SignedIn{}, failure.Wrap(op, err)
	}
	in.DeviceLifetime = s.o.DeviceTTL
	return in, nil
}

// budget is a count of failed sign-ins: at most limit in window.
type budget struct {
	key    string
	limit  int
	window time.Duration
}

// spent refuses when the budget's failures are used up. The limiter is
// asked with a limit of 0, which counts nothing and reports what the window
// holds: failures are counted only once the password proved wrong.
func (s *Service) spent(ctx context.Context, b budget) error {
	d, err := s.limiter.Allow(ctx, b.key, 0, b.window)
	if err != nil {
		return ratelimit.Failure("account.throttle", err)
	}
	if d.Used < b.limit {
		return nil
	}
	wait := d.RetryAfter
	if wait <= 0 || wait > b.window {
		wait = b.window
	}
	secs := max(1, int(wait.Round(time.Second)/time.Second))
	e := failure.E("account.throttle", failure.RateLimited, "Too many sign-in attempts. Try again in "+human(time.Duration(secs)*time.Second)+".")
	e.RetryAfterSeconds = secs
	return e
}

// knownDevice checks a device cookie against the account: the cookie's
// stored form when it was set by a sign-in to this account and is still
// honoured, else the zero token. Checking takes the stored form out (so a
// cookie of another account is put back at once); the caller restores it
// or replaces it.
func (s *Service) knownDevice(ctx context.Context, accountID int64, cookie string) ports.EmailToken {
	if cookie == "" || len(cookie) > 128 {
		return ports.EmailToken{}
	}
	t, err := s.creds.UseEmailToken(ctx, hashSecret(cookie), ports.EmailDevice, s.clock.Now())
	if err != nil {
		return ports.EmailToken{}
	}
	if t.AccountID != accountID {
		_ = s.creds.PutEmailToken(ctx, t)
		return ports.EmailToken{}
	}
	return t
}

// newDevice stores a device cookie for the account and returns its value.
func (s *Service) newDevice(ctx context.Context, accountID int64) (string, error) {
	secret, err := newSecret()
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	err = s.creds.PutEmailToken(ctx, ports.EmailToken{
		Hash: hashSecret(secret), AccountID: accountID, Purpose: ports.EmailDevice, CreatedAt: now, ExpiresAt: now.Add(s.o.DeviceTTL),
	})
	return secret, err
}

func stripe(key string, n int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % uint32(n))
}
