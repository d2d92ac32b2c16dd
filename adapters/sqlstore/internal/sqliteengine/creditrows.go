package sqliteengine

import (
	"sync"
	"sync/atomic"

	"github.com/trawlhq/trawl/ports"
)

// creditRows remembers, on SQLite, the credit row this process last read
// or committed for recently used accounts, so that a ledger view can start
// from it instead of reading the file again: a billed call's hold then
// reads nothing, and its charge checks the row where it writes it.
//
// Every write of the store goes through the writer, and epoch counts the
// writer's transactions that ended (committed or rolled back). A row read
// after the epoch was e holds every change this process made up to e; a
// row a view committed at e is the file's. While the epoch is still e, no
// transaction of this process has changed it since. Another process (an
// admin command) may have, so a view that starts from a remembered row
// checks it before it commits: the charge's UPDATE compares every credit
// column and checks the token in its WHERE clause (one statement where a
// read and a write were), or the row is read again. When it differs, the
// view starts over inside a transaction (errStaleRead). A view that
// decided on the row and writes nothing (a refusal, a plan already set)
// reads it again before it answers. A hold placed on a row another process
// changed meanwhile is what a hold placed a moment before that change is:
// the charge is decided on the row as it is.
//
// Rows are values: CreditState's times are never changed through their
// pointers (the rules replace them).
type creditRows struct {
	epoch atomic.Uint64
	slots [creditSlots]creditSlot
}

// creditSlots bounds the memory: an account shares its slot with others,
// and the last one kept in it wins.
const creditSlots = 256

type creditSlot struct {
	mu    sync.Mutex
	id    int64 // 0: empty
	epoch uint64
	row   ports.CreditState
}

func (c *creditRows) slot(accountID int64) *creditSlot {
	return &c.slots[uint64(accountID)%creditSlots]
}

// ended marks the end of a writer's transaction: every row remembered
// before it is stale.
func (c *creditRows) ended() { c.epoch.Add(1) }

// now is the epoch to read a row under: load it before the read begins.
func (c *creditRows) now() uint64 { return c.epoch.Load() }

// keep remembers row as the file held it at epoch, unless the slot holds
// a row of a later epoch. At the same epoch the last kept wins: a row a
// view committed is kept under the epoch that began as its commit ended,
// and a read under that epoch began after the commit, so it holds that row
// or a newer one another process wrote. Which of two such reads saw the
// newer row is not known; the checks above make that cost only time.
func (c *creditRows) keep(row ports.CreditState, epoch uint64) {
	if row.AccountID == 0 {
		return
	}
	s := c.slot(row.AccountID)
	s.mu.Lock()
	if s.id != row.AccountID || epoch >= s.epoch {
		s.id, s.epoch, s.row = row.AccountID, epoch, row
	}
	s.mu.Unlock()
}

// current is the account's remembered row, if no transaction of this
// process has ended since it was read or committed.
func (c *creditRows) current(accountID int64) (ports.CreditState, bool) {
	s := c.slot(accountID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id != accountID || s.epoch != c.epoch.Load() {
		return ports.CreditState{}, false
	}
	return s.row, true
}
