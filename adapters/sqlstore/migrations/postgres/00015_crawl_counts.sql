-- +goose Up
-- A crawl counts its succeeded pages as they are recorded, so that a claim
-- checks the limit without counting them again; the frontier's counts by
-- state and skip reason are read from an index alone.
ALTER TABLE crawls ADD COLUMN succeeded BIGINT NOT NULL DEFAULT 0;
UPDATE crawls SET succeeded = (SELECT COUNT(*) FROM crawl_urls WHERE crawl_urls.crawl_id = crawls.id AND crawl_urls.state = 'succeeded');
CREATE INDEX crawl_urls_counts ON crawl_urls(crawl_id, state, reason);

-- +goose Down
DROP INDEX crawl_urls_counts;
ALTER TABLE crawls DROP COLUMN succeeded;
