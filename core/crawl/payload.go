package crawl

import (
	"fmt"
	"time"

	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/ports"
)

// PageObject is a crawled page as the pages list and the crawl-page event
// carry it: the Content object, its depth and the page it was found on.
type PageObject struct {
	content.Object
	Depth  int    `json:"depth"`
	Parent string `json:"parent"`
}

// StatusObject is a crawl's status as GET /v1/crawl/{id} and the
// crawl-completed event carry it.
type StatusObject struct {
	CrawlID        string         `json:"crawl_id"`
	Status         string         `json:"status"`
	URL            string         `json:"url"`
	Limit          int            `json:"limit"`
	MaxDepth       int            `json:"max_depth"`
	Discovered     int            `json:"discovered"`
	Queued         int            `json:"queued"`
	InFlight       int            `json:"in_flight"`
	Succeeded      int            `json:"succeeded"`
	Failed         int            `json:"failed"`
	Skipped        map[string]int `json:"skipped"`
	CreditsCharged int64          `json:"credits_charged"`
	QueuedAt       string         `json:"queued_at"`
	StartedAt      *string        `json:"started_at"`
	CompletedAt    *string        `json:"completed_at"`
	Error          *string        `json:"error"`
}

// Object is the status as it travels in JSON: every skip reason present,
// zero or not.
func (s Status) Object() StatusObject {
	o := StatusObject{CrawlID: s.ID, Status: s.Status, URL: s.URL, Limit: s.Limit, MaxDepth: s.MaxDepth, Discovered: s.Counts.Discovered, Queued: s.Counts.Queued,
		InFlight: s.Counts.InFlight, Succeeded: s.Counts.Succeeded, Failed: s.Counts.Failed, Skipped: map[string]int{}, CreditsCharged: s.CreditsCharged,
		QueuedAt: ports.FormatTime(s.QueuedAt), StartedAt: isoPtr(s.StartedAt), CompletedAt: isoPtr(s.CompletedAt)}
	for _, r := range SkipReasons {
		o.Skipped[r] = s.Counts.Skipped[r]
	}
	if s.Error != "" {
		e := s.Error
		o.Error = &e
	}
	return o
}

func isoPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ports.FormatTime(*t)
	return &s
}

// ResultsMail is the message that links to a crawl's archive.
func ResultsMail(from, to, crawlID, startURL, link string, c ports.CrawlCounts, ttl time.Duration) ports.Mail {
	days := int(ttl.Hours() / 24)
	expiry := fmt.Sprintf("%d days", days)
	if days < 1 {
		expiry = ttl.String()
	}
	subject := fmt.Sprintf("Your Trawl crawl of %s is ready: %d pages extracted", startURL, c.Succeeded)
	text := fmt.Sprintf("Hello,\n\nYour crawl %s of %s has finished: %d page(s) extracted, %d failed (failed and skipped pages are not charged).\n\n"+
		"Download the results (a ZIP with html/ and markdown/ folders):\n%s\n\nThe link expires in %s.\n\n-- Trawl\n", crawlID, startURL, c.Succeeded, c.Failed, link, expiry)
	return ports.Mail{From: from, To: to, Subject: subject, Text: text}
}
