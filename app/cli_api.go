package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/trawlhq/trawl/client"
)

// apiRefused is an API answer the caller can fix (a 4xx): exit code 3.
type apiRefused struct{ error }

// bulkPoll is how often api bulk --wait asks for the job's state.
var bulkPoll = 500 * time.Millisecond

// api runs the client commands against TRAWL_API_URL.
func (c CLI) api(name string, o *options) error {
	cl, err := c.apiClient()
	if err != nil {
		return err
	}
	ctx := c.Signals
	if ctx == nil {
		ctx = context.Background()
	}
	switch name {
	case "api content":
		err = c.apiContent(ctx, cl, o)
	case "api map":
		err = c.apiMap(ctx, cl, o)
	case "api serp":
		err = c.apiSerp(ctx, cl, o)
	case "api bulk":
		err = c.apiBulk(ctx, cl, o)
	case "api credits":
		var cr client.Credits
		if cr, err = cl.Credits(ctx); err == nil {
			if o.json {
				return c.json(cr)
			}
			fmt.Fprintf(c.Stdout, "balance %s (used %d of %d this period)\n", cr.FormattedBalance, cr.Used, cr.Limit)
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
		return apiRefused{errors.New(msg)}
	}
	return errors.New(msg)
}

func (c CLI) apiContent(ctx context.Context, cl *client.Client, o *options) error {
	switch o.format {
	case "markdown", "html", "json":
	default:
		return usageError{fmt.Errorf("--format must be markdown, html or json, not %q", o.format)}
	}
	page, err := cl.Content(ctx, o.arg)
	if err != nil {
		return err
	}
	switch o.format {
	case "json":
		return c.json(page)
	case "html":
		fmt.Fprintln(c.Stdout, page.HTML)
	default:
		fmt.Fprintln(c.Stdout, page.Markdown)
	}
	return nil
}

func (c CLI) apiMap(ctx context.Context, cl *client.Client, o *options) error {
	m, err := cl.Map(ctx, o.arg, o.limit)
	if err != nil {
		return err
	}
	if o.json {
		return c.json(m)
	}
	for _, u := range m.URLs {
		fmt.Fprintln(c.Stdout, u)
	}
	if m.Truncated {
		fmt.Fprintf(c.Stderr, "%d of %d URLs (--limit)\n", len(m.URLs), m.Total)
	}
	return nil
}

func (c CLI) apiSerp(ctx context.Context, cl *client.Client, o *options) error {
	res, err := cl.Search(ctx, client.SearchParams{Q: o.arg, Engine: o.engine})
	if err != nil {
		return err
	}
	if o.json {
		return c.json(res)
	}
	for _, r := range res.OrganicResults {
		fmt.Fprintf(c.Stdout, "%d\t%s\t%s\n", r.Position, r.Title, r.Link)
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

func (c CLI) apiBulk(ctx context.Context, cl *client.Client, o *options) error {
	f, err := os.Open(o.file)
	if err != nil {
		return usageError{fmt.Errorf("--file: %v", err)}
	}
	urls, err := readURLs(f)
	f.Close()
	if err != nil {
		return usageError{fmt.Errorf("--file: %v", err)}
	}
	ack, err := cl.CreateBulkJob(ctx, client.BulkRequest{URLs: urls, Email: o.mailResults, CallbackURL: o.callback})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "job %s: %d URLs %s\n", ack.JobID, ack.URLsCount, ack.Status)
	if !o.wait {
		return nil
	}
	tty := isTerminal(c.Stdout)
	last := ""
	for {
		job, err := cl.BulkJob(ctx, ack.JobID)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %d/%d (%d ok, %d failed)", job.Status, job.ProcessedCount, job.URLsCount, job.SuccessCount, job.FailedCount)
		switch {
		case tty:
			fmt.Fprintf(c.Stdout, "\r%s %s", bar(job.ProcessedCount, job.URLsCount, 30), line)
		case line != last:
			fmt.Fprintln(c.Stdout, line)
		}
		last = line
		if job.Status == "completed" || job.Status == "failed" {
			if tty {
				fmt.Fprintln(c.Stdout)
			}
			if job.Status == "failed" {
				msg := "the job failed"
				if job.Error != nil {
					msg += ": " + *job.Error
				}
				return errors.New(msg)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(bulkPoll):
		}
	}
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
