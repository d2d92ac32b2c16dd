// Package changes holds change tracking: an answer's Markdown (or, for
// /v1/extract, its fields) compared with the previous answer the same
// account got for the same page and tag. Trawl's extractor drops page
// chrome before the comparison, so navigation, footers and ads that move
// do not count as a change.
package changes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/ports"
)

// Statuses of a change.
const (
	StatusNew     = "new"     // no previous snapshot of this page (and tag) for this account
	StatusSame    = "same"    // the content is the previous snapshot's
	StatusChanged = "changed" // it differs: see the diff
	StatusRemoved = "removed" // the page is gone (404, 410) where a snapshot was taken
)

// DefaultRetention is how long a snapshot is kept after it was taken.
const DefaultRetention = 90 * 24 * time.Hour

// MaxTagLen bounds a tag.
const MaxTagLen = 100

// Request is what a call asks of change tracking.
type Request struct {
	On  bool   // changes=true
	Tag string // optional label: snapshots of one page under two tags are apart
	// Account is the calling account: snapshots are its own.
	Account int64
	// Writer is the job reading the page ("" for a single call): a job
	// resumed after its node died compares a page it had already compared
	// with the same previous snapshot, not with the one it wrote itself.
	Writer string
}

// ParseTag checks a tag.
func ParseTag(tag, field string) (string, error) {
	tag = strings.TrimSpace(tag)
	if utf8.RuneCountInString(tag) > MaxTagLen {
		return "", failure.Invalidf("changes.ParseTag", field, "The %s may have at most %d characters.", field, MaxTagLen)
	}
	return tag, nil
}

type requestKey struct{}

// With returns ctx carrying the call's change request.
func With(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// ForAccount returns ctx whose change request names the calling account.
func ForAccount(ctx context.Context, account int64) context.Context {
	r := RequestOf(ctx)
	r.Account = account
	return With(ctx, r)
}

// RequestOf is the change request ctx carries (off when none).
func RequestOf(ctx context.Context) Request {
	r, _ := ctx.Value(requestKey{}).(Request)
	return r
}

// FieldChange is one field of an extraction that changed.
type FieldChange struct {
	Previous any `json:"previous"`
	Current  any `json:"current"`
}

// Change is what an answer says of the previous one.
type Change struct {
	Status     string
	PreviousAt time.Time // zero when there was none
	Diff       string    // unified diff of the Markdown; "" unless changed
	// Fields are the extraction's changed fields (top-level keys); nil for
	// content.
	Fields map[string]FieldChange
}

// Object is the change object of an answer: {status, previous_at, diff}.
type Object struct {
	Status     string                 `json:"status"`
	PreviousAt *string                `json:"previous_at"`
	Diff       *string                `json:"diff,omitempty"`
	Fields     map[string]FieldChange `json:"fields,omitempty"`
}

// Object renders the change.
func (c Change) Object() *Object {
	o := &Object{Status: c.Status, Fields: c.Fields}
	if !c.PreviousAt.IsZero() {
		s := c.PreviousAt.UTC().Format(time.RFC3339)
		o.PreviousAt = &s
	}
	if c.Status == StatusChanged && c.Fields == nil {
		d := c.Diff
		o.Diff = &d
	}
	return o
}

// Tracker compares answers with the account's previous snapshots.
type Tracker struct {
	store     ports.SnapshotStore
	differ    ports.TextDiffer
	clock     ports.Clock
	urlKey    func(*url.URL) string
	retention time.Duration
	lastPrune atomic.Int64
}

// NewTracker builds a tracker; retention 0 is DefaultRetention.
func NewTracker(store ports.SnapshotStore, differ ports.TextDiffer, clock ports.Clock, urlKey func(*url.URL) string, retention time.Duration) (*Tracker, error) {
	if store == nil || differ == nil || clock == nil || urlKey == nil {
		return nil, errors.New("changes.NewTracker: store, differ, clock and URL key are required")
	}
	if retention <= 0 {
		retention = DefaultRetention
	}
	return &Tracker{store: store, differ: differ, clock: clock, urlKey: urlKey, retention: retention}, nil
}

// normalise is the Markdown as compared: line endings, trailing spaces and
// runs of blank lines make no difference.
func normalise(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	var b strings.Builder
	blank := 0
	for _, line := range strings.Split(strings.TrimSpace(md), "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// Decide is the rule for Markdown: new without a previous snapshot, same
// when the normalised texts are equal, changed otherwise.
func Decide(found bool, previous, current string) string {
	switch {
	case !found:
		return StatusNew
	case normalise(previous) == normalise(current):
		return StatusSame
	}
	return StatusChanged
}

func (t *Tracker) prune(ctx context.Context, now time.Time) {
	last := t.lastPrune.Load()
	if now.UnixNano()-last < int64(time.Hour) || !t.lastPrune.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	_, _ = t.store.PruneSnapshots(context.WithoutCancel(ctx), now.Add(-t.retention))
}

// Compare compares a page's Markdown with the account's previous snapshot
// under the tag, and keeps this one as the next call's previous.
func (t *Tracker) Compare(ctx context.Context, accountID int64, u *url.URL, tag, markdown string) (Change, error) {
	key := t.urlKey(u)
	now := t.clock.Now()
	t.prune(ctx, now)
	writer := RequestOf(ctx).Writer
	prev, found, err := t.store.Snapshot(ctx, accountID, key, tag)
	if err != nil {
		return Change{}, err
	}
	prev, found = baseline(prev, found, writer)
	if found && prev.TakenAt.Before(now.Add(-t.retention)) {
		found = false // past retention: as if pruned
	}
	c := Change{Status: Decide(found, prev.Markdown, markdown)}
	if found {
		c.PreviousAt = prev.TakenAt
	}
	if c.Status == StatusChanged {
		c.Diff = t.differ.Unified("previous", "current", normalise(prev.Markdown), normalise(markdown))
	}
	next := ports.Snapshot{AccountID: accountID, URLKey: key, Tag: tag, URL: u.String(), Markdown: markdown, TakenAt: now, Writer: writer}
	if writer != "" && found {
		next.PrevMarkdown, next.PrevTakenAt = prev.Markdown, prev.TakenAt
	}
	err = t.store.PutSnapshot(ctx, next)
	return c, err
}

// baseline is what a page is compared with: the latest snapshot, unless
// the same job took it (it is being resumed and reads the page again):
// then the one that job compared with, if any.
func baseline(s ports.Snapshot, found bool, writer string) (ports.Snapshot, bool) {
	if !found || writer == "" || s.Writer != writer {
		return s, found
	}
	return ports.Snapshot{AccountID: s.AccountID, URLKey: s.URLKey, Tag: s.Tag, URL: s.URL, Markdown: s.PrevMarkdown, TakenAt: s.PrevTakenAt}, !s.PrevTakenAt.IsZero()
}

// Removed says whether a page that is gone had a snapshot: a removed
// change when it had (the snapshot is kept, so the page coming back is a
// change again), found false when it had none.
func (t *Tracker) Removed(ctx context.Context, accountID int64, u *url.URL, tag string) (Change, bool, error) {
	prev, found, err := t.store.Snapshot(ctx, accountID, t.urlKey(u), tag)
	prev, found = baseline(prev, found, RequestOf(ctx).Writer)
	if err != nil || !found || prev.TakenAt.Before(t.clock.Now().Add(-t.retention)) {
		return Change{}, false, err
	}
	return Change{Status: StatusRemoved, PreviousAt: prev.TakenAt}, true, nil
}

// CompareData compares an extraction (a JSON object) with the account's
// previous one for the page and tag, field by field; the order of keys
// makes no difference anywhere in it.
func (t *Tracker) CompareData(ctx context.Context, accountID int64, u *url.URL, tag string, data json.RawMessage) (Change, error) {
	key := t.urlKey(u)
	now := t.clock.Now()
	t.prune(ctx, now)
	prev, found, err := t.store.Snapshot(ctx, accountID, key, "extract\x00"+tag)
	if err != nil {
		return Change{}, err
	}
	if found && prev.TakenAt.Before(now.Add(-t.retention)) {
		found = false
	}
	c := Change{Status: StatusNew}
	if found {
		c.PreviousAt = prev.TakenAt
		c.Fields = Fields(prev.Data, data)
		c.Status = StatusSame
		if len(c.Fields) > 0 {
			c.Status = StatusChanged
		} else {
			c.Fields = nil
		}
	}
	err = t.store.PutSnapshot(ctx, ports.Snapshot{AccountID: accountID, URLKey: key, Tag: "extract\x00" + tag, URL: u.String(), Data: bytes.Clone(data), TakenAt: now})
	return c, err
}

// Fields are the top-level fields of two JSON objects whose values differ
// (a field present in one only counts, as null in the other). Values are
// compared as decoded JSON: the order of object keys makes no difference.
func Fields(previous, current []byte) map[string]FieldChange {
	var p, c map[string]any
	_ = json.Unmarshal(previous, &p)
	_ = json.Unmarshal(current, &c)
	names := map[string]bool{}
	for k := range p {
		names[k] = true
	}
	for k := range c {
		names[k] = true
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]FieldChange{}
	for _, k := range keys {
		if !reflect.DeepEqual(p[k], c[k]) {
			out[k] = FieldChange{Previous: p[k], Current: c[k]}
		}
	}
	return out
}
