package clientcmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/trawlhq/trawl/client"
)

// crawlPoll is how often api crawl --wait asks for the crawl's state.
var crawlPoll = 500 * time.Millisecond

func (r runner) apiCrawl(ctx context.Context, cl *client.Client) error {
	req := client.CrawlRequest{URL: r.a.Arg, Include: r.a.Include, Exclude: r.a.Exclude, Scope: r.a.Scope, Email: r.a.Email, CallbackURL: r.a.Callback,
		MaxAge: r.a.MaxAge, Store: r.store(), Changes: r.a.Changes, Tag: r.a.Tag}
	if r.a.Limit != 0 {
		req.Limit = &r.a.Limit
	}
	if r.a.Depth >= 0 {
		req.MaxDepth = &r.a.Depth
	}
	ack, err := cl.CreateCrawl(ctx, req)
	if err != nil {
		return err
	}
	if !r.a.Wait {
		if r.a.JSON {
			return r.json(ack)
		}
		fmt.Fprintf(r.io.Stdout, "crawl %s: %s, up to %d pages, %d hops\n", ack.CrawlID, ack.Status, ack.Limit, ack.MaxDepth)
		return nil
	}
	fmt.Fprintf(r.io.Stderr, "crawl %s: %s, up to %d pages, %d hops\n", ack.CrawlID, ack.Status, ack.Limit, ack.MaxDepth)
	tty := isTerminal(r.io.Stderr)
	last := ""
	var st client.CrawlStatus
	for {
		if st, err = cl.Crawl(ctx, ack.CrawlID); err != nil {
			return err
		}
		skipped := 0
		for _, n := range st.Skipped {
			skipped += n
		}
		line := fmt.Sprintf("%s %d/%d pages (%d failed, %d skipped, %d credits)", st.Status, st.Succeeded, st.Limit, st.Failed, skipped, st.CreditsCharged)
		switch {
		case tty:
			fmt.Fprintf(r.io.Stderr, "\r%s %s", bar(st.Succeeded, st.Limit, 30), line)
		case line != last:
			fmt.Fprintln(r.io.Stderr, line)
		}
		last = line
		if st.Done() {
			if tty {
				fmt.Fprintln(r.io.Stderr)
			}
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(crawlPoll):
		}
	}
	if r.a.JSON {
		if err := r.json(st); err != nil {
			return err
		}
	} else {
		// The pages' URLs, one a line, in the order they finished.
		cursor := ""
		for {
			pg, err := cl.CrawlPages(ctx, ack.CrawlID, cursor, 100)
			if err != nil {
				return err
			}
			for _, p := range pg.Pages {
				fmt.Fprintln(r.io.Stdout, p.URL)
			}
			if pg.NextCursor == nil {
				break
			}
			cursor = *pg.NextCursor
		}
	}
	if st.Status == client.CrawlFailed {
		msg := "the crawl failed"
		if st.Error != nil {
			msg += ": " + *st.Error
		}
		return errors.New(msg)
	}
	return nil
}
