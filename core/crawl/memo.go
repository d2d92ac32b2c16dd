package crawl

import (
	"sync"
	"time"

	"github.com/trawlhq/trawl/ports"
)

// countsMemo is a node's memo of running crawls' counts, each kept for
// CountsMemo after it was read from the store.
type countsMemo struct {
	mu   sync.Mutex
	byID map[string]memoCounts
}

type memoCounts struct {
	counts ports.CrawlCounts
	at     time.Time
}

// memoMax bounds the crawls remembered: past it, the entries too old to
// be used are dropped.
const memoMax = 1024

func (m *countsMemo) get(id string, now time.Time) (ports.CrawlCounts, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byID[id]
	if !ok || now.Sub(e.at) >= CountsMemo || now.Before(e.at) {
		return ports.CrawlCounts{}, false
	}
	return e.counts, true
}

func (m *countsMemo) put(id string, c ports.CrawlCounts, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byID == nil {
		m.byID = map[string]memoCounts{}
	}
	if len(m.byID) >= memoMax {
		for k, e := range m.byID {
			if now.Sub(e.at) >= CountsMemo || now.Before(e.at) {
				delete(m.byID, k)
			}
		}
	}
	if len(m.byID) < memoMax {
		m.byID[id] = memoCounts{counts: c, at: now}
	}
}

func (m *countsMemo) drop(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.byID, id)
}
