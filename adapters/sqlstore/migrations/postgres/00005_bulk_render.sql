-- +goose Up
-- A job reads its pages the way its request asked (render: auto, always,
-- never) and keeps the traceparent of that request; each URL records how
-- its page was read (engine) and the stable reason code of its failure.
ALTER TABLE bulk_jobs ADD COLUMN render TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_jobs ADD COLUMN trace_parent TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_job_urls ADD COLUMN engine TEXT NOT NULL DEFAULT '';
ALTER TABLE bulk_job_urls ADD COLUMN reason TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE bulk_job_urls DROP COLUMN reason;
ALTER TABLE bulk_job_urls DROP COLUMN engine;
ALTER TABLE bulk_jobs DROP COLUMN trace_parent;
ALTER TABLE bulk_jobs DROP COLUMN render;
