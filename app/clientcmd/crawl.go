package clientcmd

import (
	"context"
	"fmt"

	"github.com/trawlhq/trawl/client"
)

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
	var st client.CrawlStatus
	err = wait(ctx, r.io.Stderr, func(ctx context.Context) (progress, error) {
		var err error
		if st, err = cl.Crawl(ctx, ack.CrawlID); err != nil {
			return progress{}, err
		}
		skipped := 0
		for _, n := range st.Skipped {
			skipped += n
		}
		return progress{
			line: fmt.Sprintf("%s %d/%d pages (%d failed, %d skipped, %d credits)", st.Status, st.Succeeded, st.Limit, st.Failed, skipped, st.CreditsCharged),
			done: st.Succeeded, total: st.Limit, finished: st.Done(),
		}, nil
	})
	if err != nil {
		return err
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
		return failed("crawl", st.Error)
	}
	return nil
}
