package clientcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/trawlhq/trawl/app"
	"github.com/trawlhq/trawl/core/billing"
	"io"
	"os"
	"strings"
	"time"

	"github.com/trawlhq/trawl/client"
)

// poll is how often api bulk --wait and api crawl --wait ask for the
// state of what they wait for.
var poll = 500 * time.Millisecond

// progress is one look at a job or crawl waited for: the line saying its
// state, how far it is, and whether it is finished.
type progress struct {
	line        string
	done, total int
	finished    bool
}

// wait asks look for the state every poll until it is finished: on a
// terminal w as a progress bar redrawn in place, else as each new line.
func wait(ctx context.Context, w io.Writer, look func(context.Context) (progress, error)) error {
	tty := isTerminal(w)
	last := ""
	for {
		p, err := look(ctx)
		if err != nil {
			return err
		}
		switch {
		case tty:
			fmt.Fprintf(w, "\r%s %s", bar(p.done, p.total, 30), p.line)
		case p.line != last:
			fmt.Fprintln(w, p.line)
		}
		last = p.line
		if p.finished {
			if tty {
				fmt.Fprintln(w)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// api runs the client commands against TRAWL_API_URL.
func (r runner) api(ctx context.Context, name string) error {
	cl, err := r.apiClient()
	if err != nil {
		return err
	}
	switch name {
	case "api content":
		err = r.apiContent(ctx, cl)
	case "api map":
		err = r.apiMap(ctx, cl)
	case "api serp":
		err = r.apiSerp(ctx, cl)
	case "api bulk":
		err = r.apiBulk(ctx, cl)
	case "api crawl":
		err = r.apiCrawl(ctx, cl)
	case "api monitors create", "api monitors list", "api monitors get", "api monitors pause", "api monitors resume", "api monitors delete":
		err = r.apiMonitors(ctx, cl, name)
	case "api credits":
		var cr client.Credits
		if cr, err = cl.Credits(ctx); err == nil {
			if r.a.JSON {
				return r.json(cr)
			}
			fmt.Fprintf(r.io.Stdout, "balance %s (used %s of %s this period)\n", cr.FormattedBalance, billing.FormatCredits(cr.Used), billing.FormatCredits(cr.Limit))
		}
	}
	return apiError(err)
}

// apiError words an API error for the command line, with its exit code.
func apiError(err error) error {
	var e *client.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	msg := fmt.Sprintf("%d %s", e.Status, e.Message)
	if e.Reason != "" {
		msg += " (reason: " + e.Reason + ")"
	}
	for field, msgs := range e.Errors {
		msg += fmt.Sprintf("\n  %s: %s", field, strings.Join(msgs, " "))
	}
	if e.Status >= 400 && e.Status < 500 {
		return app.RefusedError(errors.New(msg))
	}
	return errors.New(msg)
}

func (r runner) apiContent(ctx context.Context, cl *client.Client) error {
	switch r.a.Format {
	case "markdown", "html", "json":
	default:
		return app.UsageError(fmt.Errorf("--format must be markdown, html or json, not %q", r.a.Format))
	}
	page, err := cl.ContentWith(ctx, client.ContentRequest{URL: r.a.Arg, MaxAge: r.a.MaxAge, Store: r.store(), Changes: r.a.Changes, Tag: r.a.Tag})
	if err != nil {
		return err
	}
	if r.a.Format != "json" {
		r.freshness(page.Cache, page.Change)
	}
	switch r.a.Format {
	case "json":
		return r.json(page)
	case "html":
		fmt.Fprintln(r.io.Stdout, page.HTML)
	default:
		fmt.Fprintln(r.io.Stdout, page.Markdown)
	}
	return nil
}

func (r runner) apiMap(ctx context.Context, cl *client.Client) error {
	m, err := cl.Map(ctx, r.a.Arg, r.a.Limit)
	if err != nil {
		return err
	}
	if r.a.JSON {
		return r.json(m)
	}
	for _, u := range m.URLs {
		fmt.Fprintln(r.io.Stdout, u)
	}
	if m.Truncated {
		fmt.Fprintf(r.io.Stderr, "%d of %d URLs (--limit)\n", len(m.URLs), m.Total)
	}
	return nil
}

func (r runner) apiSerp(ctx context.Context, cl *client.Client) error {
	res, err := cl.Search(ctx, client.SearchParams{Q: r.a.Arg, Engine: r.a.Engine, MaxAge: r.a.MaxAge, Store: r.store()})
	if err != nil {
		return err
	}
	if r.a.JSON {
		return r.json(res)
	}
	for _, o := range res.OrganicResults {
		fmt.Fprintf(r.io.Stdout, "%d\t%s\t%s\n", o.Position, o.Title, o.Link)
	}
	return nil
}

// readURLs reads one URL a line; blank lines and # comments are skipped.
func readURLs(r io.Reader) ([]string, error) {
	var urls []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			urls = append(urls, line)
		}
	}
	return urls, sc.Err()
}

func (r runner) apiBulk(ctx context.Context, cl *client.Client) error {
	f, err := os.Open(r.a.File)
	if err != nil {
		return app.UsageError(fmt.Errorf("--file: %v", err))
	}
	urls, err := readURLs(f)
	f.Close()
	if err != nil {
		return app.UsageError(fmt.Errorf("--file: %v", err))
	}
	ack, err := cl.CreateBulkJob(ctx, client.BulkRequest{URLs: urls, Email: r.a.Email, CallbackURL: r.a.Callback,
		MaxAge: r.a.MaxAge, Store: r.store(), Changes: r.a.Changes, Tag: r.a.Tag})
	if err != nil {
		return err
	}
	fmt.Fprintf(r.io.Stdout, "job %s: %d URLs %s\n", ack.JobID, ack.URLsCount, ack.Status)
	if !r.a.Wait {
		return nil
	}
	var job client.BulkJob
	err = wait(ctx, r.io.Stdout, func(ctx context.Context) (progress, error) {
		var err error
		if job, err = cl.BulkJob(ctx, ack.JobID); err != nil {
			return progress{}, err
		}
		return progress{
			line: fmt.Sprintf("%s %d/%d (%d ok, %d failed)", job.Status, job.ProcessedCount, job.URLsCount, job.SuccessCount, job.FailedCount),
			done: job.ProcessedCount, total: job.URLsCount,
			finished: job.Status == client.JobCompleted || job.Status == client.JobFailed,
		}, nil
	})
	if err != nil {
		return err
	}
	if job.Status == client.JobFailed {
		return failed("job", job.Error)
	}
	return nil
}

// failed is the error of a job or crawl (what) that failed, with the
// reason it gave, if any.
func failed(what string, reason *string) error {
	msg := "the " + what + " failed"
	if reason != nil {
		msg += ": " + *reason
	}
	return errors.New(msg)
}

// bar draws a progress bar of width cells.
func bar(done, total, width int) string {
	filled := 0
	if total > 0 {
		filled = min(width, done*width/total)
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "]"
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (r runner) json(v any) error {
	enc := json.NewEncoder(r.io.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// store is the store field of a call: false with --no-store, else unset
// (the server's default, true).
func (r runner) store() *bool {
	if !r.a.NoStore {
		return nil
	}
	no := false
	return &no
}

// freshness tells on stderr whether a page came from the cache and how it
// compares with the previous read, so stdout stays the page itself.
func (r runner) freshness(c *client.Cache, ch *client.Change) {
	if c != nil && c.Hit {
		fmt.Fprintf(r.io.Stderr, "cache: hit, %d s old\n", c.Age)
	}
	if ch == nil {
		return
	}
	line := "change: " + ch.Status
	if ch.PreviousAt != nil {
		line += " since " + *ch.PreviousAt
	}
	fmt.Fprintln(r.io.Stderr, line)
	if ch.Diff != "" {
		fmt.Fprint(r.io.Stderr, ch.Diff)
	}
}
