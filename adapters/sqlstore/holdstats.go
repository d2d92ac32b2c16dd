package sqlstore

import (
	"context"
	"time"
)

// OpenHolds counts the credit holds of every account that have not expired
// at now, and the credits they reserve (settled and released holds are
// deleted, so only open ones are read). On SQLite they are in memory.
func (s *Store) OpenHolds(ctx context.Context, now time.Time) (int, int64, error) {
	return s.eng.openHolds(ctx, now)
}
