package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/trawlhq/trawl/ports"
)

var _ ports.CacheIndex = (*Store)(nil)

const cacheColumns = `cache_key, url, final_url, engine, status_code, content_type, charset, etag, last_modified, body_key, size, stored_at, used_at`

type cacheRow struct {
	Key          string `db:"cache_key"`
	URL          string `db:"url"`
	FinalURL     string `db:"final_url"`
	Engine       string `db:"engine"`
	StatusCode   int    `db:"status_code"`
	ContentType  string `db:"content_type"`
	Charset      string `db:"charset"`
	ETag         string `db:"etag"`
	LastModified string `db:"last_modified"`
	BodyKey      string `db:"body_key"`
	Size         int64  `db:"size"`
	StoredAt     int64  `db:"stored_at"`
	UsedAt       int64  `db:"used_at"`
}

func (r cacheRow) entry() ports.CacheEntry {
	return ports.CacheEntry{
		Key: r.Key, URL: r.URL, FinalURL: r.FinalURL, Engine: r.Engine, StatusCode: r.StatusCode, ContentType: r.ContentType,
		Charset: r.Charset, ETag: r.ETag, LastModified: r.LastModified, BodyKey: r.BodyKey, Size: r.Size,
		StoredAt: fromMS(r.StoredAt), UsedAt: fromMS(r.UsedAt),
	}
}

// CacheEntry implements ports.CacheIndex.
func (s *Store) CacheEntry(ctx context.Context, key string) (ports.CacheEntry, bool, error) {
	var r cacheRow
	err := s.x().GetContext(ctx, &r, s.q(`SELECT `+cacheColumns+` FROM page_cache WHERE cache_key = ?`), key)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.CacheEntry{}, false, nil
	}
	if err != nil {
		return ports.CacheEntry{}, false, fail(ctx, "sqlstore.CacheEntry", err)
	}
	return r.entry(), true, nil
}

// PutCacheEntry implements ports.CacheIndex: the entry it replaces is read
// in the same transaction (locked on Postgres), so its body can be dropped.
func (s *Store) PutCacheEntry(ctx context.Context, e ports.CacheEntry) (ports.CacheEntry, bool, error) {
	var (
		old   cacheRow
		found bool
	)
	err := s.inTx(ctx, func(tx execer) error {
		lock := `SELECT ` + cacheColumns + ` FROM page_cache WHERE cache_key = ?`
		if s.dialect == Postgres {
			lock += ` FOR UPDATE`
		}
		err := tx.GetContext(ctx, &old, s.q(lock), e.Key)
		switch {
		case err == nil:
			found = true
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO page_cache (`+cacheColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (cache_key) DO UPDATE SET url = excluded.url, final_url = excluded.final_url, engine = excluded.engine,
			status_code = excluded.status_code, content_type = excluded.content_type, charset = excluded.charset, etag = excluded.etag,
			last_modified = excluded.last_modified, body_key = excluded.body_key, size = excluded.size, stored_at = excluded.stored_at,
			used_at = excluded.used_at`),
			e.Key, e.URL, e.FinalURL, e.Engine, e.StatusCode, e.ContentType, e.Charset, e.ETag, e.LastModified, e.BodyKey, e.Size, ms(e.StoredAt), ms(e.UsedAt))
		return err
	})
	if err != nil {
		return ports.CacheEntry{}, false, fail(ctx, "sqlstore.PutCacheEntry", err)
	}
	if !found {
		return ports.CacheEntry{}, false, nil
	}
	return old.entry(), true, nil
}

// TouchCacheEntry implements ports.CacheIndex.
func (s *Store) TouchCacheEntry(ctx context.Context, key string, usedAt, storedAt time.Time) error {
	var err error
	if storedAt.IsZero() {
		_, err = s.w().ExecContext(ctx, s.q(`UPDATE page_cache SET used_at = ? WHERE cache_key = ?`), ms(usedAt), key)
	} else {
		_, err = s.w().ExecContext(ctx, s.q(`UPDATE page_cache SET used_at = ?, stored_at = ? WHERE cache_key = ?`), ms(usedAt), ms(storedAt), key)
	}
	return fail(ctx, "sqlstore.TouchCacheEntry", err)
}

// EvictCacheEntries implements ports.CacheIndex: in one transaction, the
// least recently used rows go until the rest fit.
func (s *Store) EvictCacheEntries(ctx context.Context, maxBytes int64) ([]ports.CacheEntry, error) {
	var gone []ports.CacheEntry
	err := s.inTx(ctx, func(tx execer) error {
		gone = nil
		var total int64
		if err := tx.GetContext(ctx, &total, s.q(`SELECT COALESCE(SUM(size), 0) FROM page_cache`)); err != nil {
			return err
		}
		for total > maxBytes {
			// A batch at a time, oldest use first: the rows past the bound
			// are usually a few.
			var rows []cacheRow
			if err := tx.SelectContext(ctx, &rows, s.q(`SELECT `+cacheColumns+` FROM page_cache ORDER BY used_at, cache_key LIMIT 64`)); err != nil {
				return err
			}
			if len(rows) == 0 {
				return nil
			}
			for _, r := range rows {
				if total <= maxBytes {
					break
				}
				if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM page_cache WHERE cache_key = ?`), r.Key); err != nil {
					return err
				}
				total -= r.Size
				gone = append(gone, r.entry())
			}
		}
		return nil
	})
	if err != nil {
		return nil, fail(ctx, "sqlstore.EvictCacheEntries", err)
	}
	return gone, nil
}

// CacheBytes implements ports.CacheIndex.
func (s *Store) CacheBytes(ctx context.Context) (int64, error) {
	var total int64
	if err := s.x().GetContext(ctx, &total, s.q(`SELECT COALESCE(SUM(size), 0) FROM page_cache`)); err != nil {
		return 0, fail(ctx, "sqlstore.CacheBytes", err)
	}
	return total, nil
}
