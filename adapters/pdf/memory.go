package pdf

import (
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// regions hands each PDFium instance its linear memory as an anonymous
// mapping of the cap's size, reserved but not touched: the kernel backs
// only the pages PDFium writes, growing the memory never copies it (a Go
// slice grown by append holds the old and the new buffer at once, and the
// garbage stays resident until the collector and the scavenger get to
// it), and the mapping goes back to the system as the document ends.
type regions struct {
	mu   sync.Mutex
	last *region // the region the last instantiation allocated
}

func newRegions() *regions { return &regions{} }

func (rs *regions) Allocate(_, max uint64) experimental.LinearMemory {
	r := &region{}
	if b, err := mapAnon(max); err == nil {
		r.mem, r.mapped = b, true
	} else {
		// No mapping (another system, or the address space is short): a
		// Go slice of the same capacity, returned by the collector.
		r.mem = make([]byte, 0, max)
	}
	rs.last = r
	return r
}

// take returns the region of the instance just made (nil if it made
// none); the caller holds mu across the instantiation.
func (rs *regions) take() *region {
	r := rs.last
	rs.last = nil
	return r
}

// region is one instance's memory. It is unmapped once both the instance
// is closed (Free) and the conversion that ran in it has returned (done):
// an instance killed on timeout is closed from another goroutine while
// its code may still touch the memory for an instant.
type region struct {
	mu          sync.Mutex
	mem         []byte
	mapped      bool
	freed, over bool
}

func (r *region) Reallocate(size uint64) []byte {
	if size > uint64(cap(r.mem)) {
		return nil
	}
	return r.mem[:size]
}

func (r *region) Free() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.freed = true
	r.release()
}

func (r *region) done() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.over = true
	r.release()
}

func (r *region) release() {
	if r.freed && r.over && r.mem != nil {
		if r.mapped {
			_ = unmap(r.mem)
		}
		r.mem = nil
	}
}
