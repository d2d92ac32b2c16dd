package content

import (
	"context"
	"net/url"

	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/failure"
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
