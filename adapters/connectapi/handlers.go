package connectapi

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect"

	"github.com/trawlhq/trawl/adapters/callheader"
	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/core/billing"
	"github.com/trawlhq/trawl/core/bulk"
	"github.com/trawlhq/trawl/core/content"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/domainrule"
	"github.com/trawlhq/trawl/core/prompt"
	"github.com/trawlhq/trawl/core/search"
	"github.com/trawlhq/trawl/core/sitemap"
	"github.com/trawlhq/trawl/core/structured"
	"github.com/trawlhq/trawl/ports"
)

func isoPtr(t *time.Time) string {
	if t == nil {
		return ""
	}
	return ports.FormatTime(*t)
}

func contentMsg(p content.Page) *trawlv1.Content { return objectMsg(p.Object()) }

func objectMsg(o content.Object) *trawlv1.Content {
	m := o.Metadata
	c := &trawlv1.Content{Url: o.URL, Success: o.Success, StatusCode: int32(o.StatusCode), ErrorMessage: o.ErrorMessage, Html: o.HTML, Markdown: o.Markdown,
		Metadata: &trawlv1.Metadata{Title: m.Title, Description: m.Description, Keywords: m.Keywords, Author: m.Author, Language: m.Language, Favicon: m.Favicon,
			OgImage: m.OGImage, OgImageWidth: m.OGImageWidth, OgImageHeight: m.OGImageHeight, OgTitle: m.OGTitle, OgType: m.OGType}, Engine: o.Engine}
	if m.PageCount > 0 {
		n := int32(m.PageCount)
		c.Metadata.PageCount = &n
	}
	if o.Warning != "" {
		c.Warning = &o.Warning
	}
	c.Cache = cacheObjectMsg(o.Cache)
	c.Change = changeMsg(o.Change)
	if o.Links != nil {
		for _, l := range *o.Links {
			c.Links = append(c.Links, &trawlv1.Link{Url: l.URL, Text: l.Text})
		}
	}
	if o.Images != nil {
		for _, i := range *o.Images {
			c.Images = append(c.Images, &trawlv1.Image{Url: i.URL, Alt: i.Alt})
		}
	}
	c.Screenshot = screenshotMsg(o.Screenshot)
	for _, a := range o.Actions {
		r := &trawlv1.ActionResult{Index: int32(a.Index), Type: a.Type, Screenshot: screenshotMsg(a.Screenshot)}
		if a.Value != nil {
			v := string(a.Value)
			r.Value = &v
		}
		c.Actions = append(c.Actions, r)
	}
	return c
}

func screenshotMsg(s *content.ScreenshotLink) *trawlv1.Screenshot {
	if s == nil {
		return nil
	}
	return &trawlv1.Screenshot{Url: s.URL, Width: int32(s.Width), Height: int32(s.Height), ExpiresAt: s.ExpiresAt.UTC().Format(time.RFC3339)}
}

// contentOptions are a GetContent request's formats, actions and page options.
func contentOptions(m *trawlv1.GetContentRequest) content.Options {
	o := content.Options{Formats: m.GetFormats(), Device: m.GetDevice(), Locale: m.GetLocale(), Country: m.GetCountry(), Headers: m.GetHeaders(), Cookies: m.GetCookies()}
	for _, a := range m.GetActions() {
		o.Actions = append(o.Actions, content.ActionInput{Type: a.GetType(), Milliseconds: int(a.GetMilliseconds()), Selector: a.GetSelector(), Text: a.GetText(),
			Key: a.GetKey(), Direction: a.GetDirection(), Script: a.GetScript()})
	}
	return o
}

type pageHandler struct{ s *Server }

func (h pageHandler) Scrape(ctx context.Context, req *connect.Request[trawlv1.ScrapeRequest]) (*connect.Response[trawlv1.ScrapeResponse], error) {
	var cached string
	res, err := billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.ScrapeResponse, credits.Receipt, error) {
		mode, err := content.ParseRenderMode(req.Msg.GetRender(), "render")
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		if ctx, err = withCache(ctx, req.Msg.GetMaxAge(), req.Msg.Store); err != nil {
			return nil, credits.Receipt{}, err
		}
		raw, rc, err := h.s.svc.Content.Scrape(ctx, c, req.Msg.GetUrl(), mode)
		if err != nil {
			return nil, rc, err
		}
		out := &trawlv1.ScrapeResponse{Url: raw.URL, FinalUrl: raw.FinalURL, StatusCode: int32(raw.StatusCode), ContentType: raw.ContentType, Html: raw.HTML, Engine: string(raw.Engine),
			Cache: cacheMsg(raw.Cache)}
		cached = cacheHeader(out.Cache)
		return out, rc, nil
	})
	return withCacheHeader(res, err, cached)
}

func (h pageHandler) GetContent(ctx context.Context, req *connect.Request[trawlv1.GetContentRequest]) (*connect.Response[trawlv1.GetContentResponse], error) {
	var cached string
	res, err := billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.GetContentResponse, credits.Receipt, error) {
		mode, err := content.ParseRenderMode(req.Msg.GetRender(), "render")
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		if ctx, err = withCache(ctx, req.Msg.GetMaxAge(), req.Msg.Store); err != nil {
			return nil, credits.Receipt{}, err
		}
		if ctx, err = withChanges(ctx, req.Msg.GetChanges(), req.Msg.GetTag()); err != nil {
			return nil, credits.Receipt{}, err
		}
		page, rc, err := h.s.svc.Content.ContentWith(ctx, c, req.Msg.GetUrl(), mode, contentOptions(req.Msg))
		if err != nil {
			return nil, rc, err
		}
		out := &trawlv1.GetContentResponse{Content: contentMsg(page)}
		cached = cacheHeader(out.Content.GetCache())
		return out, rc, nil
	})
	return withCacheHeader(res, err, cached)
}

func (h pageHandler) Map(ctx context.Context, req *connect.Request[trawlv1.MapRequest]) (*connect.Response[trawlv1.MapResponse], error) {
	return billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.MapResponse, credits.Receipt, error) {
		res, rc, err := h.s.svc.Sitemap.MapWith(ctx, c, req.Msg.GetUrl(), given(req.Msg.GetLimit()), sitemap.Options{IncludeLinks: req.Msg.GetIncludeLinks()})
		if err != nil {
			return nil, rc, err
		}
		return &trawlv1.MapResponse{Url: res.URL, Total: int32(res.Total), Truncated: res.Truncated, Sources: res.Sources, Urls: res.URLs}, rc, nil
	})
}

func (h pageHandler) CreateBulkContentJob(ctx context.Context, req *connect.Request[trawlv1.CreateBulkContentJobRequest]) (*connect.Response[trawlv1.CreateBulkContentJobResponse], error) {
	return billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.CreateBulkContentJobResponse, credits.Receipt, error) {
		m := req.Msg
		ack, err := h.s.svc.Bulk.Submit(ctx, c, bulk.Request{URLs: m.GetUrls(), Sitemap: m.GetSitemap(), Email: m.GetEmail(), CallbackURL: m.GetCallbackUrl(), Sync: m.GetSync(), Render: m.GetRender(),
			MaxAge: m.GetMaxAge(), NoStore: m.Store != nil && !m.GetStore(), Changes: m.GetChanges(), Tag: m.GetTag()})
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		return &trawlv1.CreateBulkContentJobResponse{Message: ack.Message, JobId: ack.JobID, UrlsCount: int32(ack.URLsCount), UrlSource: string(ack.URLSource),
			DeliveryMethod: ack.DeliveryMethod, EstimatedCompletionTime: ack.EstimatedCompletionTime, Status: string(ack.Status), QueuedAt: ports.FormatTime(ack.QueuedAt)}, credits.Receipt{}, nil
	})
}

func (h pageHandler) GetBulkContentJob(ctx context.Context, req *connect.Request[trawlv1.GetBulkContentJobRequest]) (*connect.Response[trawlv1.GetBulkContentJobResponse], error) {
	st, err := h.s.svc.Bulk.Status(ctx, principal(ctx).Account.ID, req.Msg.GetJobId())
	if err != nil {
		return nil, toConnect(err)
	}
	j := st.Job
	out := &trawlv1.GetBulkContentJobResponse{JobId: j.ID, Status: string(j.Status), UrlSource: string(j.URLSource), DeliveryMethod: st.DeliveryMethod,
		UrlsCount: int32(j.URLsCount), ProcessedCount: int32(st.Processed), SuccessCount: int32(st.Succeeded), FailedCount: int32(st.Failed), QueuedAt: ports.FormatTime(j.QueuedAt),
		StartedAt: isoPtr(j.StartedAt), CompletedAt: isoPtr(j.CompletedAt), FailedAt: isoPtr(j.FailedAt), Error: j.Error, DownloadUrl: st.Download, Render: string(bulk.Render(j))}
	for _, u := range st.URLs {
		r := &trawlv1.BulkUrlResult{Url: u.URL, Status: string(u.Status), Success: u.Status == ports.URLSucceeded, StatusCode: int32(u.StatusCode), Error: u.Error, Engine: u.Engine}
		if reason, retry, ok := bulk.URLOutcome(u); ok {
			r.Reason, r.Retryable = string(reason), retry
		}
		out.Results = append(out.Results, r)
	}
	for _, d := range st.Deliveries {
		out.Deliveries = append(out.Deliveries, &trawlv1.DeliveryAttempt{Channel: string(d.Channel), Attempt: int32(d.Attempt), StatusCode: int32(d.StatusCode), Error: d.Error, DurationMs: d.Duration.Milliseconds(), At: ports.FormatTime(d.At)})
	}
	return connect.NewResponse(out), nil
}

type searchHandler struct{ s *Server }

func organicMsgs(res search.Results) []*trawlv1.OrganicResult {
	var out []*trawlv1.OrganicResult
	for _, o := range res.Results.Organic {
		m := &trawlv1.OrganicResult{Position: int32(o.Position), Title: o.Title, Link: o.Link, Snippet: o.Snippet, DisplayedLink: o.DisplayedLink, Favicon: o.Favicon, Source: o.Source}
		if o.Thumbnail != "" {
			th := o.Thumbnail
			m.Thumbnail = &th
		}
		for _, sl := range o.Sitelinks {
			m.Sitelinks = append(m.Sitelinks, &trawlv1.Sitelink{Title: sl.Title, Link: sl.Link})
		}
		if p, ok := res.Contents[o.Position]; ok {
			m.Content = contentMsg(p)
		}
		out = append(out, m)
	}
	return out
}

func searchParts(res search.Results) (*trawlv1.SearchInformation, []*trawlv1.RelatedQuestion, []*trawlv1.RelatedSearch) {
	r := res.Results
	info := &trawlv1.SearchInformation{QueryDisplayed: r.QueryDisplayed, TotalResults: r.TotalResults, TimeTaken: res.SecondsTaken()}
	var qs []*trawlv1.RelatedQuestion
	for _, q := range r.RelatedQuestions {
		qs = append(qs, &trawlv1.RelatedQuestion{Question: q.Question, Answer: q.Answer})
	}
	var rs []*trawlv1.RelatedSearch
	for _, x := range r.RelatedSearches {
		rs = append(rs, &trawlv1.RelatedSearch{Query: x.Query, Link: x.Link, Image: x.Image})
	}
	return info, qs, rs
}

func (h searchHandler) Search(ctx context.Context, req *connect.Request[trawlv1.SearchRequest]) (*connect.Response[trawlv1.SearchResponse], error) {
	var cached string
	res, err := billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.SearchResponse, credits.Receipt, error) {
		m := req.Msg
		ctx, err := withCache(ctx, m.GetMaxAge(), m.Store)
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		res, rc, err := h.s.svc.Search.Search(ctx, c, search.Request{Q: m.GetQ(), Loc: m.GetLoc(), HL: m.GetHl(), GL: m.GetGl(), Engine: m.GetEngine()})
		if err != nil {
			return nil, rc, err
		}
		info, qs, rs := searchParts(res)
		out := &trawlv1.SearchResponse{Engine: res.Engine, SearchInformation: info, OrganicResults: organicMsgs(res), RelatedQuestions: qs, RelatedSearches: rs,
			Cache: cacheMsg(res.Cache)}
		cached = cacheHeader(out.Cache)
		return out, rc, nil
	})
	return withCacheHeader(res, err, cached)
}

func (h searchHandler) SearchContent(ctx context.Context, req *connect.Request[trawlv1.SearchContentRequest]) (*connect.Response[trawlv1.SearchContentResponse], error) {
	var cached string
	res, err := billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.SearchContentResponse, credits.Receipt, error) {
		m := req.Msg
		mode, err := content.ParseRenderMode(m.GetRender(), "render")
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		if ctx, err = withCache(ctx, m.GetMaxAge(), m.Store); err != nil {
			return nil, credits.Receipt{}, err
		}
		res, rc, err := h.s.svc.Search.SearchContent(ctx, c, search.ContentRequest{
			Request:    search.Request{Q: m.GetQ(), Loc: m.GetLoc(), HL: m.GetHl(), GL: m.GetGl(), Engine: m.GetEngine()},
			MaxContent: given(m.GetMaxContent()),
			Filter:     domainrule.Filter{Whitelist: domainrule.ParseList(m.GetWhitelistDomains()), Blacklist: domainrule.ParseList(m.GetBlacklistDomains())},
			Render:     mode,
		})
		if err != nil {
			return nil, rc, err
		}
		info, qs, rs := searchParts(res)
		out := &trawlv1.SearchContentResponse{Engine: res.Engine, SearchInformation: info, OrganicResults: organicMsgs(res), RelatedQuestions: qs, RelatedSearches: rs,
			Cache: cacheMsg(res.Cache)}
		caches := []*trawlv1.Cache{out.Cache}
		for _, o := range out.OrganicResults {
			caches = append(caches, o.GetContent().GetCache())
		}
		cached = cacheHeader(caches...)
		return out, rc, nil
	})
	return withCacheHeader(res, err, cached)
}

type promptHandler struct{ s *Server }

func (h promptHandler) Prompt(ctx context.Context, req *connect.Request[trawlv1.PromptRequest]) (*connect.Response[trawlv1.PromptResponse], error) {
	return billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.PromptResponse, credits.Receipt, error) {
		mode, err := content.ParseRenderMode(req.Msg.GetRender(), "render")
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		text, rc, err := h.s.svc.Prompt.Prompt(ctx, c, prompt.Request{Prompt: req.Msg.GetPrompt(), URL: req.Msg.GetUrl(), Render: mode})
		if err != nil {
			return nil, rc, err
		}
		return &trawlv1.PromptResponse{Response: text}, rc, nil
	})
}

func (h promptHandler) Extract(ctx context.Context, req *connect.Request[trawlv1.ExtractRequest]) (*connect.Response[trawlv1.ExtractResponse], error) {
	if h.s.svc.Extract == nil {
		return nil, connect.NewError(connect.CodeUnimplemented, errors.New("extraction is not offered by this server"))
	}
	return billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.ExtractResponse, credits.Receipt, error) {
		mode, err := content.ParseRenderMode(req.Msg.GetRender(), "render")
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		if ctx, err = withChanges(ctx, req.Msg.GetChanges(), req.Msg.GetTag()); err != nil {
			return nil, credits.Receipt{}, err
		}
		res, rc, err := h.s.svc.Extract.Extract(ctx, c, structured.Request{URL: req.Msg.GetUrl(), Schema: []byte(req.Msg.GetSchema()), Prompt: req.Msg.GetPrompt(), Render: mode})
		if err != nil {
			return nil, rc, err
		}
		out := &trawlv1.ExtractResponse{Data: string(res.Data), Url: res.URL}
		if res.Change != nil {
			out.Change = changeMsg(res.Change.Object())
		}
		return out, rc, nil
	})
}

type creditsHandler struct{ s *Server }

func statusMsg(st billing.Status) *trawlv1.CreditStatus {
	m := &trawlv1.CreditStatus{Balance: st.Balance, FormattedBalance: st.FormattedBalance, Limit: st.Limit, Used: st.Used, IsLow: st.IsLow,
		Threshold: st.Threshold, PercentageUsed: st.PercentageUsed}
	if st.NextRenewal != nil {
		nr := ports.FormatTime(*st.NextRenewal)
		m.NextRenewal = &nr
	}
	return m
}

// withStatus answers with the caller's credit status, flagging a low balance
// as the JSON API does.
func withStatus[Res any](ctx context.Context, h creditsHandler, msg func(billing.Status) *Res) (*connect.Response[Res], error) {
	st, err := h.s.svc.Credits.StatusFor(ctx, principal(ctx))
	if err != nil {
		return nil, toConnect(err)
	}
	res := connect.NewResponse(msg(st))
	callheader.SetQuotaWarning(res.Header(), st.Warning())
	return res, nil
}

func (h creditsHandler) GetCredits(ctx context.Context, _ *connect.Request[trawlv1.GetCreditsRequest]) (*connect.Response[trawlv1.GetCreditsResponse], error) {
	return withStatus(ctx, h, func(st billing.Status) *trawlv1.GetCreditsResponse {
		return &trawlv1.GetCreditsResponse{Balance: st.Balance, FormattedBalance: st.FormattedBalance, Limit: st.Limit, Used: st.Used, Status: statusMsg(st)}
	})
}

func (h creditsHandler) GetUsageStats(ctx context.Context, _ *connect.Request[trawlv1.GetUsageStatsRequest]) (*connect.Response[trawlv1.GetUsageStatsResponse], error) {
	return withStatus(ctx, h, func(st billing.Status) *trawlv1.GetUsageStatsResponse {
		return &trawlv1.GetUsageStatsResponse{Status: statusMsg(st)}
	})
}

func (h creditsHandler) ListTransactions(ctx context.Context, req *connect.Request[trawlv1.ListTransactionsRequest]) (*connect.Response[trawlv1.ListTransactionsResponse], error) {
	paging := credits.Paging{Page: given(req.Msg.GetPage()), PerPage: given(req.Msg.GetPerPage())}
	p, err := h.s.svc.Credits.Transactions(ctx, principal(ctx).Account.ID, paging)
	if err != nil {
		return nil, toConnect(err)
	}
	out := &trawlv1.ListTransactionsResponse{CurrentPage: int32(p.Page), LastPage: int32(p.LastPage()), PerPage: int32(p.PerPage), Total: int32(p.Total)}
	for _, t := range p.Items {
		m := t.Metadata
		out.Data = append(out.Data, &trawlv1.Transaction{Id: t.ID, ServiceType: t.ServiceType, ServiceName: t.ServiceName, Credits: t.Credits, BalanceAfter: t.BalanceAfter,
			CreatedAt: ports.FormatTime(t.CreatedAt), Metadata: &trawlv1.TransactionMetadata{Url: m.URL, Query: m.Query, JobId: m.JobID, RequestId: m.RequestID, SessionId: m.SessionID}})
	}
	return connect.NewResponse(out), nil
}

func previewMsg(p billing.Preview) *trawlv1.CostPreview {
	return &trawlv1.CostPreview{ServiceType: p.ServiceType, ServiceName: p.ServiceName, CreditCostPerRequest: p.CreditCostPerRequest, Quantity: p.Quantity,
		TotalCost: p.TotalCost, CurrentBalance: p.CurrentBalance, RemainingAfter: p.RemainingAfter, CanAfford: p.CanAfford}
}

// given is a scalar field of a request as core takes it: proto3 sends a
// field left unset as zero, so zero is no value and core applies its default.
func given(v int32) *int {
	if v == 0 {
		return nil
	}
	n := int(v)
	return &n
}

// givenQuantity is the quantity of a preview, unset when zero (see given).
func givenQuantity(q int64) *int64 {
	if q == 0 {
		return nil
	}
	return &q
}

func (h creditsHandler) PreviewCost(ctx context.Context, req *connect.Request[trawlv1.PreviewCostRequest]) (*connect.Response[trawlv1.PreviewCostResponse], error) {
	p, err := h.s.svc.Credits.Preview(ctx, principal(ctx).Account.ID, req.Msg.GetServiceType(), givenQuantity(req.Msg.GetQuantity()))
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.PreviewCostResponse{Preview: previewMsg(p)}), nil
}

func (h creditsHandler) CanAfford(ctx context.Context, req *connect.Request[trawlv1.CanAffordRequest]) (*connect.Response[trawlv1.CanAffordResponse], error) {
	p, err := h.s.svc.Credits.Preview(ctx, principal(ctx).Account.ID, req.Msg.GetServiceType(), givenQuantity(req.Msg.GetQuantity()))
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.CanAffordResponse{CanAfford: p.CanAfford, Preview: previewMsg(p)}), nil
}

func (h creditsHandler) PurchaseCredits(ctx context.Context, req *connect.Request[trawlv1.PurchaseCreditsRequest]) (*connect.Response[trawlv1.PurchaseCreditsResponse], error) {
	acct, err := h.s.svc.Auth.Account(ctx, principal(ctx))
	if err != nil {
		return nil, toConnect(err)
	}
	co, err := h.s.svc.Credits.Purchase(ctx, acct, req.Msg.GetCredits())
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.PurchaseCreditsResponse{CheckoutUrl: co.URL, SessionId: co.SessionID}), nil
}

type accountHandler struct{ s *Server }

func (h accountHandler) GetUser(ctx context.Context, _ *connect.Request[trawlv1.GetUserRequest]) (*connect.Response[trawlv1.GetUserResponse], error) {
	a, err := h.s.svc.Auth.Account(ctx, principal(ctx))
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.GetUserResponse{Id: a.ID, Name: a.Name, Email: a.Email, EmailVerifiedAt: isoPtr(a.EmailVerifiedAt), CreatedAt: ports.FormatTime(a.CreatedAt), UpdatedAt: ports.FormatTime(a.UpdatedAt)}), nil
}
