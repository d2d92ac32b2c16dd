package sqlstore

import (
	"context"
	"time"
)

// OpenHolds counts the credit holds of every account that have not expired
// at now, and the credits they reserve (settled and released holds are
// deleted, so only open ones are read). On SQLite they are in memory.
func (s *Store) OpenHolds(ctx context.Context, now time.Time) (int, int64, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if s.dialect == SQLite {
		if err := s.holds.load(ctx, s); err != nil {
			return 0, 0, fail(ctx, "sqlstore.OpenHolds", err)
		}
		n, credits := s.holds.open(now)
		return n, credits, nil
	}
	var row struct {
		N   int   `db:"n"`
		Sum int64 `db:"credits"`
	}
	err := s.db.GetContext(ctx, &row, s.q(`SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS credits FROM holds WHERE expires_at > ?`), ms(now))
	if err != nil {
		return 0, 0, fail(ctx, "sqlstore.OpenHolds", err)
	}
	return row.N, row.Sum, nil
}
