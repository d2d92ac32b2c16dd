package connectapi

import (
	"context"
	"errors"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/core/crawl"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/ports"
)

// crawlHandler is CrawlService: the crawls of POST /v1/crawl.
type crawlHandler struct{ s *Server }

func errNoCrawl() error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("crawls are not offered by this server"))
}

func optInt(v *int32) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}

// crawlRequestOf is a crawl message as core takes it.
func crawlRequestOf(m *trawlv1.CreateCrawlRequest) crawl.Request {
	r := crawl.Request{URL: m.GetUrl(), Limit: optInt(m.Limit), MaxDepth: optInt(m.MaxDepth), Include: m.GetInclude(), Exclude: m.GetExclude(),
		Scope: m.GetScope(), Sitemap: m.GetSitemap(), Render: m.GetRender(), CallbackURL: m.GetCallbackUrl(), Email: m.GetEmail(),
		MaxAge: m.GetMaxAge(), NoStore: m.Store != nil && !m.GetStore(), Changes: m.GetChanges(), Tag: m.GetTag()}
	if m.GetUseIgnoreQueryParams() {
		r.IgnoreQueryParams = append([]string{}, m.GetIgnoreQueryParams()...)
	}
	return r
}

func (h crawlHandler) CreateCrawl(ctx context.Context, req *connect.Request[trawlv1.CreateCrawlRequest]) (*connect.Response[trawlv1.CreateCrawlResponse], error) {
	if h.s.svc.Crawl == nil {
		return nil, errNoCrawl()
	}
	return billed(h.s, ctx, req, func(ctx context.Context, c credits.Call) (*trawlv1.CreateCrawlResponse, credits.Receipt, error) {
		ack, err := h.s.svc.Crawl.Submit(ctx, c, crawlRequestOf(req.Msg))
		if err != nil {
			return nil, credits.Receipt{}, err
		}
		return &trawlv1.CreateCrawlResponse{CrawlId: ack.CrawlID, Status: ack.Status, Url: ack.URL, Limit: int32(ack.Limit), MaxDepth: int32(ack.MaxDepth), QueuedAt: ports.FormatTime(ack.QueuedAt)}, credits.Receipt{}, nil
	})
}

func crawlStatusMsg(st crawl.Status) *trawlv1.CrawlStatus {
	o := st.Object()
	m := &trawlv1.CrawlStatus{CrawlId: o.CrawlID, Status: o.Status, Url: o.URL, Limit: int32(o.Limit), MaxDepth: int32(o.MaxDepth), Discovered: int32(o.Discovered),
		Queued: int32(o.Queued), InFlight: int32(o.InFlight), Succeeded: int32(o.Succeeded), Failed: int32(o.Failed), Skipped: map[string]int32{},
		CreditsCharged: o.CreditsCharged, QueuedAt: o.QueuedAt, StartedAt: isoPtr(st.StartedAt), CompletedAt: isoPtr(st.CompletedAt), Error: st.Error}
	for k, v := range o.Skipped {
		m.Skipped[k] = int32(v)
	}
	return m
}

func (h crawlHandler) GetCrawl(ctx context.Context, req *connect.Request[trawlv1.GetCrawlRequest]) (*connect.Response[trawlv1.GetCrawlResponse], error) {
	if h.s.svc.Crawl == nil {
		return nil, errNoCrawl()
	}
	st, err := h.s.svc.Crawl.Status(ctx, principal(ctx).Account.ID, req.Msg.GetCrawlId())
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.GetCrawlResponse{Crawl: crawlStatusMsg(st)}), nil
}

func (h crawlHandler) CancelCrawl(ctx context.Context, req *connect.Request[trawlv1.CancelCrawlRequest]) (*connect.Response[trawlv1.CancelCrawlResponse], error) {
	if h.s.svc.Crawl == nil {
		return nil, errNoCrawl()
	}
	st, err := h.s.svc.Crawl.Cancel(ctx, principal(ctx).Account.ID, req.Msg.GetCrawlId())
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.CancelCrawlResponse{Crawl: crawlStatusMsg(st)}), nil
}

func (h crawlHandler) ListCrawlPages(ctx context.Context, req *connect.Request[trawlv1.ListCrawlPagesRequest]) (*connect.Response[trawlv1.ListCrawlPagesResponse], error) {
	if h.s.svc.Crawl == nil {
		return nil, errNoCrawl()
	}
	m := req.Msg
	list, err := h.s.svc.Crawl.Pages(ctx, principal(ctx).Account.ID, m.GetCrawlId(), m.GetCursor(), optInt(m.PerPage))
	if err != nil {
		return nil, toConnect(err)
	}
	out := &trawlv1.ListCrawlPagesResponse{CrawlId: m.GetCrawlId()}
	for _, p := range list.Pages {
		out.Pages = append(out.Pages, &trawlv1.CrawlPage{Content: objectMsg(p.Content), Depth: int32(p.Depth), Parent: p.Parent})
	}
	if list.Next != "" {
		out.NextCursor = &list.Next
	}
	return connect.NewResponse(out), nil
}
