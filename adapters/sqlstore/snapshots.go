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
		URL          string `db:"url"`
		Markdown     string `db:"markdown"`
		Data         []byte `db:"data"`
		TakenAt      int64  `db:"taken_at"`
		Writer       string `db:"writer"`
		PrevMarkdown string `db:"prev_markdown"`
		PrevTakenAt  int64  `db:"prev_taken_at"`
	}
	err := s.x().GetContext(ctx, &r, s.q(`SELECT url, markdown, data, taken_at, writer, prev_markdown, prev_taken_at FROM page_snapshots WHERE account_id = ? AND url_key = ? AND tag = ?`), accountID, urlKey, tag)
	if errors.Is(err, sql.ErrNoRows) {
		return ports.Snapshot{}, false, nil
	}
	if err != nil {
		return ports.Snapshot{}, false, fail(ctx, "sqlstore.Snapshot", err)
	}
	sn := ports.Snapshot{AccountID: accountID, URLKey: urlKey, Tag: tag, URL: r.URL, Markdown: r.Markdown, Data: r.Data, TakenAt: fromMS(r.TakenAt), Writer: r.Writer, PrevMarkdown: r.PrevMarkdown}
	if r.PrevTakenAt != 0 {
		sn.PrevTakenAt = fromMS(r.PrevTakenAt)
	}
	return sn, true, nil
}

// PutSnapshot implements ports.SnapshotStore.
func (s *Store) PutSnapshot(ctx context.Context, sn ports.Snapshot) error {
	prevTakenAt := int64(0)
	if !sn.PrevTakenAt.IsZero() {
		prevTakenAt = ms(sn.PrevTakenAt)
	}
	_, err := s.w().ExecContext(ctx, s.q(`INSERT INTO page_snapshots (account_id, url_key, tag, url, markdown, data, taken_at, writer, prev_markdown, prev_taken_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (account_id, url_key, tag) DO UPDATE SET url = excluded.url, markdown = excluded.markdown, data = excluded.data, taken_at = excluded.taken_at,
		writer = excluded.writer, prev_markdown = excluded.prev_markdown, prev_taken_at = excluded.prev_taken_at`),
		sn.AccountID, sn.URLKey, sn.Tag, sn.URL, sn.Markdown, sn.Data, ms(sn.TakenAt), sn.Writer, sn.PrevMarkdown, prevTakenAt)
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
