package billing

// ServiceType names a billed (or credit-moving) operation as it appears in
// transactions and previews.
type ServiceType string

const (
	Scrape      ServiceType = "scrape"
	Content     ServiceType = "content"
	BulkContent ServiceType = "bulk_content"
	Crawl       ServiceType = "crawl"
	Map         ServiceType = "map"
	Serp        ServiceType = "serp"
	SerpContent ServiceType = "serp_content"
	Prompt      ServiceType = "prompt"
	Extract     ServiceType = "extract"
	TopUp       ServiceType = "topup"
	Grant       ServiceType = "grant"
)

// Service is one row of the cost table (spec section 1, DECISIONS.md for scrape).
type Service struct {
	Type        ServiceType
	DisplayName string
	// Credits is the cost of one successful call; for bulk content it is per
	// extracted URL, and for serp with content it is the search part.
	Credits int64
	// PerResult is the extra cost per result actually fetched (serp with content).
	PerResult int64
	// Previewable services may be asked for in /v1/credits/preview-cost.
	Previewable bool
	// MaxPreviewQuantity is the largest quantity a preview prices; zero is
	// DefaultMaxPreviewQuantity. A crawl is priced per page, up to its
	// largest limit.
	MaxPreviewQuantity int64
}

// DefaultMaxPreviewQuantity caps the quantity of a preview (the spec's 100).
const DefaultMaxPreviewQuantity = 100

// MaxCrawlPages is the largest page limit of a crawl, and so the largest
// quantity of a crawl preview.
const MaxCrawlPages = 10_000

// MaxPreview is the largest quantity a preview of s prices.
func (s Service) MaxPreview() int64 {
	if s.MaxPreviewQuantity > 0 {
		return s.MaxPreviewQuantity
	}
	return DefaultMaxPreviewQuantity
}

// Services is the cost table. Costs are the same on every plan.
var Services = []Service{
	{Type: Scrape, DisplayName: "Web Scrape", Credits: 1, Previewable: true},
	{Type: Content, DisplayName: "Content Extraction", Credits: 2, Previewable: true},
	{Type: BulkContent, DisplayName: "Bulk Content Extraction", Credits: 2},
	{Type: Crawl, DisplayName: "Crawl", Credits: 2, Previewable: true, MaxPreviewQuantity: MaxCrawlPages},
	{Type: Map, DisplayName: "Site Map", Credits: 3},
	{Type: Serp, DisplayName: "Search Results", Credits: 5, Previewable: true},
	{Type: SerpContent, DisplayName: "Search Results with Content", Credits: 5, PerResult: 2},
	{Type: Prompt, DisplayName: "LLM Prompt", Credits: 10, Previewable: true},
	{Type: Extract, DisplayName: "Structured Extraction", Credits: 10, Previewable: true},
	{Type: TopUp, DisplayName: "Credit Top-up"},
	{Type: Grant, DisplayName: "Credit Grant"},
}

// ServiceByType finds a row of the cost table.
func ServiceByType(t ServiceType) (Service, bool) {
	for _, s := range Services {
		if s.Type == t {
			return s, true
		}
	}
	return Service{}, false
}

// PreviewableTypes lists the service types accepted by the preview endpoints.
func PreviewableTypes() []string {
	var out []string
	for _, s := range Services {
		if s.Previewable {
			out = append(out, string(s.Type))
		}
	}
	return out
}

// SerpContentCost is the cost of a search with content for n fetched results.
func SerpContentCost(fetched int) int64 {
	s, _ := ServiceByType(SerpContent)
	return s.Credits + s.PerResult*int64(fetched)
}

// Cost is the cost of one successful call of a service.
func Cost(t ServiceType) int64 {
	s, _ := ServiceByType(t)
	return s.Credits
}
