package structured

import (
	"context"
	"encoding/json"

	"github.com/trawlhq/trawl/core/changes"
	"github.com/trawlhq/trawl/core/failure"
	"github.com/trawlhq/trawl/core/weburl"
)

// compare compares the extracted data with the account's previous
// extraction of the page under tag, field by field.
func (s *Service) compare(ctx context.Context, accountID int64, pageURL, tag string, data json.RawMessage) (*changes.Change, error) {
	t := s.pages.Changes()
	if t == nil {
		return nil, failure.Unable("structured.compare", failure.ReasonNotOffered, "Change tracking is not offered by this server.")
	}
	u, err := weburl.Parse(pageURL, weburl.Rules{Field: "url"})
	if err != nil {
		return nil, err
	}
	c, err := t.CompareData(ctx, accountID, u, tag, data)
	if err != nil {
		return nil, err
	}
	return &c, nil
}
