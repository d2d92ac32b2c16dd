package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"sort"
	"time"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

var (
	_ ports.CrawlStore  = (*Store)(nil)
	_ ports.RobotsCache = (*Store)(nil)
	_ ports.HostGate    = (*Store)(nil)
)

type crawlRow struct {
	ID              string `db:"id"`
	URL             string `db:"url"`
	Limit           int    `db:"page_limit"`
	MaxDepth        int    `db:"max_depth"`
	Params          string `db:"params"`
	Seeded          bool   `db:"seeded"`
	CancelRequested bool   `db:"cancel_requested"`
}

// CreateCrawl stores a crawl and its job in one transaction.
func (s *Store) CreateCrawl(ctx context.Context, j ports.BulkJob, c ports.Crawl) error {
	j.Kind = ports.KindCrawl
	err := s.inTx(ctx, func(tx execer) error {
		if err := s.insertJob(ctx, tx, j, 0); err != nil {
			return err
		}
		return s.insertCrawl(ctx, tx, j.ID, c)
	})
	return fail(ctx, "sqlstore.CreateCrawl", err)
}

// insertCrawl stores a crawl beside its job (same id).
func (s *Store) insertCrawl(ctx context.Context, tx execer, id string, c ports.Crawl) error {
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO crawls (id, url, page_limit, max_depth, params) VALUES (?, ?, ?, ?, ?)`), id, c.URL, c.Limit, c.MaxDepth, string(c.Params))
	return err
}

// Crawl reads a crawl.
func (s *Store) Crawl(ctx context.Context, id string) (ports.Crawl, error) {
	var r crawlRow
	if err := s.x().GetContext(ctx, &r, s.q(`SELECT id, url, page_limit, max_depth, params, seeded, cancel_requested FROM crawls WHERE id = ?`), id); err != nil {
		return ports.Crawl{}, notFound(ctx, "sqlstore.Crawl", "crawl", err)
	}
	return ports.Crawl{ID: r.ID, URL: r.URL, Limit: r.Limit, MaxDepth: r.MaxDepth, Params: []byte(r.Params), Seeded: r.Seeded, CancelRequested: r.CancelRequested}, nil
}

func (s *Store) setCrawlFlag(ctx context.Context, op, column, id string) error {
	res, err := s.w().ExecContext(ctx, s.q(`UPDATE crawls SET `+column+` = TRUE WHERE id = ?`), id)
	if err != nil {
		return fail(ctx, op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return failure.E(op, failure.NotFound, "crawl not found")
	}
	return nil
}

// MarkSeeded records that a crawl is seeded.
func (s *Store) MarkSeeded(ctx context.Context, id string) error {
	return s.setCrawlFlag(ctx, "sqlstore.MarkSeeded", "seeded", id)
}

// CancelCrawl asks a crawl to stop.
func (s *Store) CancelCrawl(ctx context.Context, id string) error {
	return s.setCrawlFlag(ctx, "sqlstore.CancelCrawl", "cancel_requested", id)
}

// AddCrawlURLs records discovered URLs, each key once per crawl.
func (s *Store) AddCrawlURLs(ctx context.Context, crawlID string, urls []ports.CrawlURL, hostCap int) (int, error) {
	if len(urls) == 0 {
		return 0, nil
	}
	queued := 0
	err := s.inTx(ctx, func(tx execer) error {
		seq, err := s.lockCrawlSeq(ctx, tx, crawlID)
		if err != nil {
			return err
		}
		last := seq
		if queued, err = s.addCrawlURLs(ctx, tx, crawlID, urls, hostCap, &seq); err != nil {
			return err
		}
		return s.saveCrawlSeq(ctx, tx, crawlID, last, seq, 0)
	})
	if err != nil {
		return 0, fail(ctx, "sqlstore.AddCrawlURLs", err)
	}
	return queued, nil
}

// lockCrawlSeq locks a crawl's row and reads the Seq of its last finished
// URL. Every transaction that writes a crawl's frontier locks the row
// first (then the account's credits, if at all, come before it): nodes
// adding the same keys take turns rather than deadlock.
func (s *Store) lockCrawlSeq(ctx context.Context, tx execer, crawlID string) (int64, error) {
	var seq int64
	err := tx.GetContext(ctx, &seq, s.q(`SELECT finished_seq FROM crawls WHERE id = ?`+s.eng.forUpdate()), crawlID)
	return seq, err
}

// saveCrawlSeq records the crawl's last finished Seq if it moved, and
// succeeded more pages succeeded.
func (s *Store) saveCrawlSeq(ctx context.Context, tx execer, crawlID string, was, seq int64, succeeded int) error {
	if seq == was {
		return nil
	}
	_, err := tx.ExecContext(ctx, s.q(`UPDATE crawls SET finished_seq = ?, succeeded = succeeded + ? WHERE id = ?`), seq, succeeded, crawlID)
	return err
}

// addCrawlURLs inserts urls in tx, under the crawl's lock (lockCrawlSeq):
// one statement a URL (a skipped one takes the next of *seq), and a count
// of a host's URLs the first time the cap is checked for it.
func (s *Store) addCrawlURLs(ctx context.Context, tx execer, crawlID string, urls []ports.CrawlURL, hostCap int, seq *int64) (int, error) {
	queued := 0
	perHost := map[string]int{}
	for _, u := range urls {
		n, ok := perHost[u.Host]
		if !ok && hostCap > 0 {
			if err := tx.GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM crawl_urls WHERE crawl_id = ? AND host = ?`), crawlID, u.Host); err != nil {
				return 0, err
			}
		}
		perHost[u.Host] = n
		if hostCap > 0 && n >= hostCap {
			continue
		}
		state := u.State
		if state == "" {
			state = ports.CrawlQueued
		}
		var finished sql.NullInt64
		at := int64(0)
		if state != ports.CrawlQueued {
			// A URL skipped at discovery is finished at once: it takes
			// its place in the crawl's order.
			at, finished = *seq+1, msPtr(u.FinishedAt)
		}
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO crawl_urls (crawl_id, url_key, url, host, depth, parent, state, reason, seq, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (crawl_id, url_key) DO NOTHING`), crawlID, u.Key, u.URL, u.Host, u.Depth, u.Parent, state, u.Reason, at, finished)
		if err != nil {
			return 0, err
		}
		if added, _ := res.RowsAffected(); added == 0 {
			continue
		}
		perHost[u.Host] = n + 1
		if state == ports.CrawlQueued {
			queued++
		} else {
			*seq = at
		}
	}
	return queued, nil
}

type crawlURLRow struct {
	ID         int64         `db:"id"`
	CrawlID    string        `db:"crawl_id"`
	Key        string        `db:"url_key"`
	URL        string        `db:"url"`
	Host       string        `db:"host"`
	Depth      int           `db:"depth"`
	Parent     string        `db:"parent"`
	State      string        `db:"state"`
	Reason     string        `db:"reason"`
	StatusCode int           `db:"status_code"`
	Error      string        `db:"error"`
	Content    string        `db:"content"`
	Engine     string        `db:"engine"`
	Attempts   int           `db:"attempts"`
	Seq        int64         `db:"seq"`
	FinishedAt sql.NullInt64 `db:"finished_at"`
}

const crawlURLCols = `id, crawl_id, url_key, url, host, depth, parent, state, reason, status_code, error, content, engine, attempts, seq, finished_at`

func (r crawlURLRow) url() ports.CrawlURL {
	u := ports.CrawlURL{CrawlID: r.CrawlID, ID: r.ID, Key: r.Key, URL: r.URL, Host: r.Host, Depth: r.Depth, Parent: r.Parent, State: ports.CrawlURLState(r.State),
		Reason: r.Reason, StatusCode: r.StatusCode, Error: r.Error, Engine: r.Engine, Attempts: r.Attempts, Seq: r.Seq, FinishedAt: timePtr(r.FinishedAt)}
	if r.Content != "" {
		u.Content = []byte(r.Content)
	}
	return u
}

// ClaimCrawlURLs leases queued URLs without letting succeeded plus in-flight
// URLs pass limit. The crawl's row is locked first, so claims of one crawl
// on several nodes take turns (Postgres) or share the one writer (SQLite).
func (s *Store) ClaimCrawlURLs(ctx context.Context, crawlID string, n, limit int, now time.Time, lease time.Duration) ([]ports.CrawlURL, error) {
	var out []ports.CrawlURL
	err := s.inTx(ctx, func(tx execer) error {
		out = nil
		// The crawl counts its succeeded pages (finishCrawlPage); the
		// leased ones are few, found on the claim index (crawl_id, state,
		// depth, id).
		var succeeded, leased int
		if err := tx.GetContext(ctx, &succeeded, s.q(`SELECT succeeded FROM crawls WHERE id = ?`+s.eng.forUpdate()), crawlID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &leased, s.q(`SELECT COUNT(*) FROM crawl_urls WHERE crawl_id = ? AND state = 'in_flight' AND lease_until >= ?`), crawlID, ms(now)); err != nil {
			return err
		}
		take := min(n, limit-succeeded-leased)
		if take <= 0 {
			return nil
		}
		var rows, expired []crawlURLRow
		if err := tx.SelectContext(ctx, &rows, s.q(`SELECT `+crawlURLCols+` FROM crawl_urls
			WHERE crawl_id = ? AND state = 'queued' AND not_before <= ? ORDER BY depth, id LIMIT ?`), crawlID, ms(now), take); err != nil {
			return err
		}
		if err := tx.SelectContext(ctx, &expired, s.q(`SELECT `+crawlURLCols+` FROM crawl_urls
			WHERE crawl_id = ? AND state = 'in_flight' AND lease_until < ? ORDER BY depth, id LIMIT ?`), crawlID, ms(now), take); err != nil {
			return err
		}
		// Shallowest first across both, as one ordered claim.
		rows = append(rows, expired...)
		sort.Slice(rows, func(i, j int) bool {
			if rows[i].Depth != rows[j].Depth {
				return rows[i].Depth < rows[j].Depth
			}
			return rows[i].ID < rows[j].ID
		})
		rows = rows[:min(len(rows), take)]
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE crawl_urls SET state = 'in_flight', lease_until = ? WHERE id = ?`), ms(now.Add(lease)), r.ID); err != nil {
				return err
			}
			r.State = string(ports.CrawlInFlight)
			out = append(out, r.url())
		}
		return nil
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, failure.E("sqlstore.ClaimCrawlURLs", failure.NotFound, "crawl not found")
	}
	if err != nil {
		return nil, fail(ctx, "sqlstore.ClaimCrawlURLs", err)
	}
	return out, nil
}

// FinishCrawlURL records a claimed URL's outcome and gives it the next seq.
// A URL already finished keeps its first outcome.
func (s *Store) FinishCrawlURL(ctx context.Context, u ports.CrawlURL, now time.Time) error {
	_, err := s.FinishCrawlPage(ctx, ports.CrawlOutcome{URL: u, Now: now})
	return err
}

// FinishCrawlPage records a page's outcome and its links in one
// transaction.
func (s *Store) FinishCrawlPage(ctx context.Context, o ports.CrawlOutcome) (int, error) {
	queued := 0
	err := s.inTx(ctx, func(tx execer) (err error) {
		queued, err = s.finishCrawlPage(ctx, tx, o)
		return err
	})
	if err != nil {
		return 0, fail(ctx, "sqlstore.FinishCrawlPage", err)
	}
	return queued, nil
}

// finishCrawlPage writes a page's outcome in tx: the URL's, if it is not
// finished yet (it keeps its first outcome), then its links.
func (s *Store) finishCrawlPage(ctx context.Context, tx execer, o ports.CrawlOutcome) (int, error) {
	u := o.URL
	seq, err := s.lockCrawlSeq(ctx, tx, u.CrawlID)
	if err != nil {
		return 0, err
	}
	last := seq
	res, err := tx.ExecContext(ctx, s.q(`UPDATE crawl_urls SET state = ?, reason = ?, status_code = ?, error = ?, content = ?, engine = ?, seq = ?, finished_at = ?, lease_until = 0
		WHERE id = ? AND crawl_id = ? AND state IN ('queued', 'in_flight')`),
		u.State, u.Reason, u.StatusCode, u.Error, string(u.Content), u.Engine, seq+1, ms(o.Now), u.ID, u.CrawlID)
	if err != nil {
		return 0, err
	}
	succeeded := 0
	if n, _ := res.RowsAffected(); n == 1 {
		seq++
		if u.State == ports.CrawlSucceeded {
			succeeded = 1
		}
	}
	queued, err := s.addCrawlURLs(ctx, tx, u.CrawlID, o.Links, o.HostCap, &seq)
	if err != nil {
		return 0, err
	}
	return queued, s.saveCrawlSeq(ctx, tx, u.CrawlID, last, seq, succeeded)
}

// RequeueCrawlURL puts a claimed URL back in the queue.
func (s *Store) RequeueCrawlURL(ctx context.Context, crawlID string, id int64, notBefore time.Time, attempted bool) error {
	more := 0
	if attempted {
		more = 1
	}
	_, err := s.w().ExecContext(ctx, s.q(`UPDATE crawl_urls SET state = 'queued', attempts = attempts + ?, not_before = ?, lease_until = 0 WHERE id = ? AND crawl_id = ? AND state = 'in_flight'`),
		more, ms(notBefore), id, crawlID)
	return fail(ctx, "sqlstore.RequeueCrawlURL", err)
}

// SkipQueued marks every queued URL skipped.
func (s *Store) SkipQueued(ctx context.Context, crawlID, reason string, now time.Time) (int, error) {
	n := 0
	err := s.inTx(ctx, func(tx execer) error {
		seq, err := s.lockCrawlSeq(ctx, tx, crawlID)
		if err != nil {
			return err
		}
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, s.q(`SELECT id FROM crawl_urls WHERE crawl_id = ? AND state = 'queued' ORDER BY depth, id`), crawlID); err != nil {
			return err
		}
		for _, id := range ids {
			seq++
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE crawl_urls SET state = 'skipped', reason = ?, seq = ?, finished_at = ? WHERE id = ?`), reason, seq, ms(now), id); err != nil {
				return err
			}
		}
		n = len(ids)
		_, err = tx.ExecContext(ctx, s.q(`UPDATE crawls SET finished_seq = ? WHERE id = ?`), seq, crawlID)
		return err
	})
	if err != nil {
		return 0, fail(ctx, "sqlstore.SkipQueued", err)
	}
	return n, nil
}

// HasCrawlKey reports whether a key is in a crawl's frontier.
func (s *Store) HasCrawlKey(ctx context.Context, crawlID, key string) (bool, error) {
	var n int
	err := s.x().GetContext(ctx, &n, s.q(`SELECT COUNT(*) FROM crawl_urls WHERE crawl_id = ? AND url_key = ?`), crawlID, key)
	return n > 0, fail(ctx, "sqlstore.HasCrawlKey", err)
}

// CrawlCounts sums a crawl's frontier by state and skip reason.
func (s *Store) CrawlCounts(ctx context.Context, crawlID string) (ports.CrawlCounts, error) {
	var rows []struct {
		State  string `db:"state"`
		Reason string `db:"reason"`
		N      int    `db:"n"`
	}
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT state, reason, COUNT(*) AS n FROM crawl_urls WHERE crawl_id = ? GROUP BY state, reason`), crawlID); err != nil {
		return ports.CrawlCounts{}, fail(ctx, "sqlstore.CrawlCounts", err)
	}
	c := ports.CrawlCounts{Skipped: map[string]int{}}
	for _, r := range rows {
		c.Discovered += r.N
		switch ports.CrawlURLState(r.State) {
		case ports.CrawlQueued:
			c.Queued += r.N
		case ports.CrawlInFlight:
			c.InFlight += r.N
		case ports.CrawlSucceeded:
			c.Succeeded += r.N
		case ports.CrawlFailed:
			c.Failed += r.N
		case ports.CrawlSkipped:
			c.Skipped[r.Reason] += r.N
		}
	}
	return c, nil
}

// CrawlPages lists finished URLs after a seq.
func (s *Store) CrawlPages(ctx context.Context, crawlID string, after int64, n int, succeededOnly bool) ([]ports.CrawlURL, error) {
	cond := `seq > ?`
	if succeededOnly {
		cond += ` AND state = 'succeeded'`
	}
	var rows []crawlURLRow
	if err := s.x().SelectContext(ctx, &rows, s.q(`SELECT `+crawlURLCols+` FROM crawl_urls WHERE crawl_id = ? AND `+cond+` ORDER BY seq LIMIT ?`), crawlID, after, n); err != nil {
		return nil, fail(ctx, "sqlstore.CrawlPages", err)
	}
	out := make([]ports.CrawlURL, len(rows))
	for i, r := range rows {
		out[i] = r.url()
	}
	return out, nil
}

// Robots reads a robots.txt record that has not expired.
func (s *Store) Robots(ctx context.Context, origin string, now time.Time) (ports.RobotsRecord, bool, error) {
	var r struct {
		Origin     string `db:"origin"`
		StatusCode int    `db:"status_code"`
		Body       []byte `db:"body"`
		FetchedAt  int64  `db:"fetched_at"`
		ExpiresAt  int64  `db:"expires_at"`
	}
	err := s.x().GetContext(ctx, &r, s.q(`SELECT origin, status_code, body, fetched_at, expires_at FROM robots_txt WHERE origin = ? AND expires_at > ?`), origin, ms(now))
	if errors.Is(err, sql.ErrNoRows) {
		return ports.RobotsRecord{}, false, nil
	}
	if err != nil {
		return ports.RobotsRecord{}, false, fail(ctx, "sqlstore.Robots", err)
	}
	return ports.RobotsRecord{Origin: r.Origin, StatusCode: r.StatusCode, Body: r.Body, FetchedAt: fromMS(r.FetchedAt), ExpiresAt: fromMS(r.ExpiresAt)}, true, nil
}

// PutRobots stores a robots.txt record, replacing the host's last one.
func (s *Store) PutRobots(ctx context.Context, rec ports.RobotsRecord) error {
	body := rec.Body
	if body == nil {
		body = []byte{}
	}
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO robots_txt (origin, status_code, body, fetched_at, expires_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (origin) DO UPDATE SET status_code = excluded.status_code, body = excluded.body, fetched_at = excluded.fetched_at, expires_at = excluded.expires_at`),
		rec.Origin, rec.StatusCode, body, ms(rec.FetchedAt), ms(rec.ExpiresAt))
	return fail(ctx, "sqlstore.PutRobots", err)
}

// AcquireHost takes a politeness slot for a host. The host's row is locked
// first, so nodes take turns.
func (s *Store) AcquireHost(ctx context.Context, host, token string, max int, delay time.Duration, now time.Time, lease time.Duration) (bool, time.Time, error) {
	ok := false
	var retryAt time.Time
	err := s.inTx(ctx, func(tx execer) error {
		ok, retryAt = false, time.Time{}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO crawl_hosts (host) VALUES (?) ON CONFLICT (host) DO NOTHING`), host); err != nil {
			return err
		}
		var next int64
		if err := tx.GetContext(ctx, &next, s.q(`SELECT next_start FROM crawl_hosts WHERE host = ?`+s.eng.forUpdate()), host); err != nil {
			return err
		}
		if next > ms(now) {
			retryAt = fromMS(next)
			return nil
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM crawl_host_slots WHERE host = ? AND lease_until < ?`), host, ms(now)); err != nil {
			return err
		}
		var slots struct {
			Busy    int           `db:"busy"`
			Soonest sql.NullInt64 `db:"soonest"`
		}
		if err := tx.GetContext(ctx, &slots, s.q(`SELECT COUNT(*) AS busy, MIN(lease_until) AS soonest FROM crawl_host_slots WHERE host = ?`), host); err != nil {
			return err
		}
		busy, soonest := slots.Busy, slots.Soonest
		if busy >= max {
			// A slot frees when its request ends; ask again shortly, or
			// when the soonest lease runs out if that is sooner.
			retryAt = now.Add(50 * time.Millisecond)
			if soonest.Valid && fromMS(soonest.Int64).Before(retryAt) {
				retryAt = fromMS(soonest.Int64)
			}
			return nil
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO crawl_host_slots (token, host, lease_until) VALUES (?, ?, ?)`), token, host, ms(now.Add(lease))); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE crawl_hosts SET next_start = ? WHERE host = ?`), ms(now.Add(delay)), host); err != nil {
			return err
		}
		ok = true
		return nil
	})
	if err != nil {
		return false, time.Time{}, fail(ctx, "sqlstore.AcquireHost", err)
	}
	return ok, retryAt, nil
}

// ReleaseHost frees a politeness slot, pushing the host's next start to
// notBefore when that is later.
func (s *Store) ReleaseHost(ctx context.Context, host, token string, notBefore time.Time) error {
	err := s.inTx(ctx, func(tx execer) error {
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM crawl_host_slots WHERE token = ?`), token); err != nil {
			return err
		}
		if notBefore.IsZero() {
			return nil
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE crawl_hosts SET next_start = ? WHERE host = ? AND next_start < ?`), ms(notBefore), host, ms(notBefore))
		return err
	})
	return fail(ctx, "sqlstore.ReleaseHost", err)
}
