package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/trawlhq/trawl/ports"
)

var _ ports.SnapshotStore = (*Store)(nil)

// Snapshot implements ports.SnapshotStore.
func (s *Store) Snapshot(ctx context.Context, accountID int64, urlKey, tag string) (ports.Snapshot, bool, error) {
	var r struct {
		URL      string `db:"url"`
		Markdown string `db:"markdown"`
		Data     []byte `db:"data"`
		TakenAt  int64  `db:"taken_at"`
	}
	err := s.x().GetContext(ctx, &r, s.q(`SELECT url, markdown, data, taken_at FROM page_snapshots WHERE account_id = ? AND url_key = ? AND tag = ?`), accountID, urlKey, tag)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.Snapshot{}, false, nil
	}
	if err != nil {
		return ports.Snapshot{}, false, fail(ctx, "sqlstore.Snapshot", err)
	}
	return ports.Snapshot{AccountID: accountID, URLKey: urlKey, Tag: tag, URL: r.URL, Markdown: r.Markdown, Data: r.Data, TakenAt: fromMS(r.TakenAt)}, true, nil
}

// PutSnapshot implements ports.SnapshotStore.
func (s *Store) PutSnapshot(ctx context.Context, sn ports.Snapshot) error {
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO page_snapshots (account_id, url_key, tag, url, markdown, data, taken_at) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id, url_key, tag) DO UPDATE SET url = excluded.url, markdown = excluded.markdown, data = excluded.data, taken_at = excluded.taken_at`),
		sn.AccountID, sn.URLKey, sn.Tag, sn.URL, sn.Markdown, sn.Data, ms(sn.TakenAt))
	return fail(ctx, "sqlstore.PutSnapshot", err)
}

// PruneSnapshots implements ports.SnapshotStore.
func (s *Store) PruneSnapshots(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.w().ExecContext(ctx, s.q(`DELETE FROM page_snapshots WHERE taken_at < ?`), ms(before))
	if err != nil {
		return 0, fail(ctx, "sqlstore.PruneSnapshots", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}
