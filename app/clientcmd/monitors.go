package clientcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/client"
)

// apiMonitors runs the api monitors commands.
func (r runner) apiMonitors(ctx context.Context, cl *client.Client, name string) error {
	switch name {
	case "api monitors create":
		if r.a.Limit != 0 && r.a.Crawl == "" {
			return app.UsageError(errors.New("--limit is the crawl's page limit: it needs --crawl"))
		}
		req := client.MonitorRequest{Name: r.a.Name, URLs: r.a.URLs, Schedule: r.a.Schedule, CallbackURL: r.a.Callback, Email: r.a.Email}
		if r.a.Crawl != "" {
			req.Crawl = &client.MonitorCrawl{URL: r.a.Crawl}
			if r.a.Limit != 0 {
				req.Crawl.Limit = &r.a.Limit
			}
		}
		if r.a.AllPages {
			all := false
			req.ChangesOnly = &all
		}
		m, err := cl.CreateMonitor(ctx, req)
		if err != nil {
			return err
		}
		return r.monitor(m)
	case "api monitors list":
		p, err := cl.Monitors(ctx, 1, 100)
		if err != nil {
			return err
		}
		if r.a.JSON {
			return r.json(p)
		}
		for _, m := range p.Data {
			fmt.Fprintf(r.io.Stdout, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.Status, next(m), m.Schedule, m.Name)
		}
		if p.Total > len(p.Data) {
			fmt.Fprintf(r.io.Stderr, "%d of %d monitors\n", len(p.Data), p.Total)
		}
		return nil
	case "api monitors get":
		m, err := cl.Monitor(ctx, r.a.Arg)
		if err != nil {
			return err
		}
		if err := r.monitor(m); err != nil || r.a.JSON {
			return err
		}
		for _, c := range m.Checks {
			fmt.Fprintf(r.io.Stdout, "  check %s %s: %d pages, %d changed, %d credits\n", c.ScheduledAt, c.Status, c.PagesChecked, c.Changed, c.Credits)
		}
		return nil
	case "api monitors pause", "api monitors resume":
		status := client.MonitorPaused
		if name == "api monitors resume" {
			status = client.MonitorActive
		}
		m, err := cl.UpdateMonitor(ctx, r.a.Arg, client.MonitorPatch{Status: &status})
		if err != nil {
			return err
		}
		return r.monitor(m)
	default: // api monitors delete
		if err := cl.DeleteMonitor(ctx, r.a.Arg); err != nil {
			return err
		}
		fmt.Fprintf(r.io.Stdout, "monitor %s deleted\n", r.a.Arg)
		return nil
	}
}

// monitor prints a monitor: a line, or JSON with --json.
func (r runner) monitor(m client.Monitor) error {
	if r.a.JSON {
		return r.json(m)
	}
	line := fmt.Sprintf("monitor %s: %s, next check %s, schedule %q", m.ID, m.Status, next(m), m.Schedule)
	if m.PausedReason != nil {
		line += " (" + *m.PausedReason + ")"
	}
	fmt.Fprintln(r.io.Stdout, line)
	return nil
}

// next is a monitor's next check as a line shows it.
func next(m client.Monitor) string {
	if m.NextRunAt == nil {
		return "none"
	}
	return *m.NextRunAt
}
