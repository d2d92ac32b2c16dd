package content

import (
	"container/list"
	"context"
	"sync"

	"github.com/trawlhq/trawl/core/cache"
	"github.com/trawlhq/trawl/ports"
)

// memoMaxBytes bounds the extractions remembered in memory.
const memoMaxBytes = 32 << 20

// extractionMemo remembers the extraction of kept bodies: a body in the
// page cache never changes under its key (a new response gets a new key),
// so its extraction is the same every time it is served. A hit of
// /v1/content then costs a read, not an extraction. Least recently used
// extractions go first past memoMaxBytes; it is this process's alone.
type extractionMemo struct {
	mu    sync.Mutex
	ll    *list.List
	items map[string]*list.Element
	bytes int
}

type memoItem struct {
	key  string
	ex   ports.Extracted
	size int
}

func newExtractionMemo() *extractionMemo {
	return &extractionMemo{ll: list.New(), items: map[string]*list.Element{}}
}

func (m *extractionMemo) get(key string) (ports.Extracted, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		return ports.Extracted{}, false
	}
	m.ll.MoveToFront(el)
	return el.Value.(*memoItem).ex, true
}

func (m *extractionMemo) put(key string, ex ports.Extracted) {
	size := len(key) + len(ex.HTML) + len(ex.Markdown) + len(ex.Text) + 512
	if size > memoMaxBytes/8 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.bytes -= el.Value.(*memoItem).size
		m.ll.Remove(el)
	}
	m.items[key] = m.ll.PushFront(&memoItem{key: key, ex: ex, size: size})
	m.bytes += size
	for m.bytes > memoMaxBytes {
		last := m.ll.Back()
		it := last.Value.(*memoItem)
		m.ll.Remove(last)
		delete(m.items, it.key)
		m.bytes -= it.size
	}
}

// extractKept extracts a document, remembering the extraction of a body
// the page cache keeps (the body just fetched or served, as ctx's tracker
// noted it). The extractor's typed reason is worded for the caller.
func (s *Service) extractKept(ctx context.Context, r ports.ExtractRequest) (ports.Extracted, error) {
	info, ok := cache.Noted(ctx)
	if s.memo == nil || !ok || info.Body == "" {
		ex, err := s.extractor.Extract(ctx, r)
		return ex, ExtractFailure(err)
	}
	key := info.Body + "\x00" + r.URL
	if ex, ok := s.memo.get(key); ok {
		return ex, nil
	}
	ex, err := s.extractor.Extract(ctx, r)
	if err == nil {
		s.memo.put(key, ex)
	}
	return ex, ExtractFailure(err)
}
