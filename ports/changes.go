package ports

import (
	"context"
	"time"
)

// Snapshot is the last answer an account got for a page (and a tag): what
// change tracking compares the next answer with.
type Snapshot struct {
	AccountID int64
	URLKey    string // the URL's comparison form
	Tag       string // the caller's label; "" when none
	URL       string
	Markdown  string
	// Data is the extracted JSON of a /v1/extract answer; nil for content.
	Data    []byte
	TakenAt time.Time
	// Writer is the job whose page read took the snapshot ("" for a single
	// call); PrevMarkdown and PrevTakenAt are, for a job's snapshot, the one
	// it was compared with (PrevTakenAt zero: none), so a resumed job that
	// reads the page again compares with the same one.
	Writer       string
	PrevMarkdown string
	PrevTakenAt  time.Time
}

// SnapshotStore keeps each account's latest snapshot per page and tag.
type SnapshotStore interface {
	// Snapshot reads the latest snapshot; found is false when there is none.
	Snapshot(ctx context.Context, accountID int64, urlKey, tag string) (s Snapshot, found bool, err error)
	// PutSnapshot stores s as the latest for its account, page and tag.
	PutSnapshot(ctx context.Context, s Snapshot) error
	// PruneSnapshots deletes the snapshots taken before before and says how
	// many went.
	PruneSnapshots(ctx context.Context, before time.Time) (int64, error)
}

// TextDiffer writes the unified line diff of two texts ("" when equal).
type TextDiffer interface {
	Unified(oldLabel, newLabel, old, new string) string
}
