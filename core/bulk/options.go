package bulk

import (
	"context"
	"encoding/json"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/ports"
)

// pageOptions checks a job's page options as a content call checks its
// own (a bad one is a 422 naming its field, e.g. actions[2].selector) and
// returns them as the JSON the job keeps; empty when there are none.
func (s *Service) pageOptions(o content.Options, mode content.RenderMode) (string, error) {
	if o.Empty() {
		return "", nil
	}
	if _, _, err := s.worker.d.Pages.Plan(o, mode); err != nil {
		return "", err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// extract reads one page of a job with the job's options: those checked
// when the job was accepted, checked again against the server as it is
// now (a proxy country gone from the pool fails the URL, free). A job
// without options reads its pages as before.
func (w *Worker) extract(ctx context.Context, job ports.BulkJob, pageURL string) (content.Page, error) {
	if job.PageOptions == "" {
		return w.d.Pages.Extract(ctx, pageURL, Render(job))
	}
	var o content.Options
	if err := json.Unmarshal([]byte(job.PageOptions), &o); err != nil {
		return content.Page{URL: pageURL}, err
	}
	plan, mode, err := w.d.Pages.Plan(o, Render(job))
	if err != nil {
		return content.Page{URL: pageURL}, err
	}
	return w.d.Pages.ExtractWith(ctx, pageURL, mode, plan)
}
