-- +goose Up
-- A bulk job reads each page with the options it was submitted with
-- (formats, actions, device, locale, headers, cookies, country), kept as
-- JSON; empty: none.
ALTER TABLE bulk_jobs ADD COLUMN page_options TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE bulk_jobs DROP COLUMN page_options;
