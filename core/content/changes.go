package content

import (
	"context"
	"net/url"

	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
)

// WithChanges lets calls ask for change tracking (changes=true).
func WithChanges(t *changes.Tracker) Option { return func(s *Service) { s.changes = t } }

// Changes is the change tracker; nil when the server offers none.
func (s *Service) Changes() *changes.Tracker { return s.changes }

// compare sets the page's change when the call asked for one.
func (s *Service) compare(ctx context.Context, u *url.URL, p *Page) error {
	q := changes.RequestOf(ctx)
	if !q.On {
		return nil
	}
	if s.changes == nil {
		return failure.Unable("content.compare", failure.ReasonNotOffered, "Change tracking is not offered by this server.")
	}
	c, err := s.changes.Compare(ctx, q.Account, u, q.Tag, p.Markdown)
	if err != nil {
		return err
	}
	p.Change = &c
	return nil
}

// Removed is the change of a page that is gone (the site answered 404 or
// 410) when the call asked for changes and the account had a snapshot of
// it; nil otherwise.
func (s *Service) Removed(ctx context.Context, pageURL string, status int) *changes.Change {
	q := changes.RequestOf(ctx)
	if !q.On || s.changes == nil || (status != 404 && status != 410) {
		return nil
	}
	u, err := weburl.Parse(pageURL, weburl.Rules{Field: "url"})
	if err != nil {
		return nil
	}
	c, found, err := s.changes.Removed(ctx, q.Account, u, q.Tag)
	if err != nil || !found {
		return nil
	}
	return &c
}
