package connectapi

import (
	"context"
	"errors"

	"connectrpc.com/connect"

	trawlv1 "github.com/trawlhq/trawl/adapters/connectapi/gen/trawl/v1"
	"github.com/trawlhq/trawl/core/credits"
	"github.com/trawlhq/trawl/core/monitor"
)

// monitorHandler is MonitorService: the monitors of /v1/monitors. Every
// call is free; checks are charged as the pages they read.
type monitorHandler struct{ s *Server }

func errNoMonitors() error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("monitors are not offered by this server"))
}

// monitors is the monitor service; nil when the server offers none.
func (h monitorHandler) monitors() (*monitor.Service, error) {
	if h.s.svc.Monitors == nil {
		return nil, errNoMonitors()
	}
	return h.s.svc.Monitors, nil
}

// monitorMsg is a monitor as its message.
func monitorMsg(o monitor.Object) *trawlv1.Monitor {
	m := &trawlv1.Monitor{Id: o.ID, Name: o.Name, Urls: o.URLs, Schedule: o.Schedule, CallbackUrl: o.CallbackURL, Email: o.Email, ChangesOnly: o.ChangesOnly,
		Status: o.Status, PausedReason: o.PausedReason, NextRunAt: o.NextRunAt, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
	if c := o.Crawl; c != nil {
		m.Crawl = &trawlv1.CreateCrawlRequest{Url: c.URL, Limit: optInt32(c.Limit), MaxDepth: optInt32(c.MaxDepth), Include: c.Include, Exclude: c.Exclude,
			Scope: c.Scope, Sitemap: c.Sitemap, UseIgnoreQueryParams: c.IgnoreQueryParams != nil, Render: c.Render, MaxAge: c.MaxAge, Store: c.Store}
		if c.IgnoreQueryParams != nil {
			m.Crawl.IgnoreQueryParams = *c.IgnoreQueryParams
		}
	}
	if o.Checks != nil {
		for _, c := range *o.Checks {
			m.Checks = append(m.Checks, &trawlv1.MonitorCheck{Id: c.ID, ScheduledAt: c.ScheduledAt, StartedAt: c.StartedAt, FinishedAt: c.FinishedAt, Status: c.Status,
				PagesChecked: int32(c.PagesChecked), Changed: int32(c.Changed), Credits: c.Credits, Error: c.Error})
		}
	}
	return m
}

func optInt32(v *int) *int32 {
	if v == nil {
		return nil
	}
	n := int32(*v)
	return &n
}

func (h monitorHandler) CreateMonitor(ctx context.Context, req *connect.Request[trawlv1.CreateMonitorRequest]) (*connect.Response[trawlv1.CreateMonitorResponse], error) {
	svc, err := h.monitors()
	if err != nil {
		return nil, err
	}
	m := req.Msg
	r := monitor.Request{Name: m.GetName(), URLs: m.GetUrls(), Schedule: m.GetSchedule(), CallbackURL: m.GetCallbackUrl(), Email: m.GetEmail(), ChangesOnly: m.ChangesOnly}
	if m.Crawl != nil {
		c := crawlRequestOf(m.Crawl)
		r.Crawl = &c
	}
	mon, err := svc.Create(ctx, principal(ctx).Account.ID, r)
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.CreateMonitorResponse{Monitor: monitorMsg(monitor.ObjectOf(mon))}), nil
}

func (h monitorHandler) ListMonitors(ctx context.Context, req *connect.Request[trawlv1.ListMonitorsRequest]) (*connect.Response[trawlv1.ListMonitorsResponse], error) {
	svc, err := h.monitors()
	if err != nil {
		return nil, err
	}
	p, err := svc.List(ctx, principal(ctx).Account.ID, credits.Paging{Page: given(req.Msg.GetPage()), PerPage: given(req.Msg.GetPerPage())})
	if err != nil {
		return nil, toConnect(err)
	}
	out := &trawlv1.ListMonitorsResponse{CurrentPage: int32(p.Page), LastPage: int32(p.LastPage()), PerPage: int32(p.PerPage), Total: int32(p.Total)}
	for _, m := range p.Items {
		out.Data = append(out.Data, monitorMsg(monitor.ObjectOf(m)))
	}
	return connect.NewResponse(out), nil
}

func (h monitorHandler) GetMonitor(ctx context.Context, req *connect.Request[trawlv1.GetMonitorRequest]) (*connect.Response[trawlv1.GetMonitorResponse], error) {
	svc, err := h.monitors()
	if err != nil {
		return nil, err
	}
	d, err := svc.Get(ctx, principal(ctx).Account.ID, req.Msg.GetMonitorId())
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.GetMonitorResponse{Monitor: monitorMsg(d.Object())}), nil
}

func (h monitorHandler) UpdateMonitor(ctx context.Context, req *connect.Request[trawlv1.UpdateMonitorRequest]) (*connect.Response[trawlv1.UpdateMonitorResponse], error) {
	svc, err := h.monitors()
	if err != nil {
		return nil, err
	}
	m := req.Msg
	mon, err := svc.Update(ctx, principal(ctx).Account.ID, m.GetMonitorId(), monitor.Patch{Name: m.Name, Schedule: m.Schedule, CallbackURL: m.CallbackUrl,
		Email: m.Email, ChangesOnly: m.ChangesOnly, Status: m.Status})
	if err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.UpdateMonitorResponse{Monitor: monitorMsg(monitor.ObjectOf(mon))}), nil
}

func (h monitorHandler) DeleteMonitor(ctx context.Context, req *connect.Request[trawlv1.DeleteMonitorRequest]) (*connect.Response[trawlv1.DeleteMonitorResponse], error) {
	svc, err := h.monitors()
	if err != nil {
		return nil, err
	}
	if err := svc.Delete(ctx, principal(ctx).Account.ID, req.Msg.GetMonitorId()); err != nil {
		return nil, toConnect(err)
	}
	return connect.NewResponse(&trawlv1.DeleteMonitorResponse{}), nil
}
