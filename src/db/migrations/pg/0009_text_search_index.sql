-- Text search through an index (issue 14): trigram GIN indexes on the books' stored lower-cased
-- search text and on the series' lower-cased names, which the repositories' `LIKE '%...%'`
-- conditions use as they are. pg_trgm is a trusted extension (PostgreSQL 13+): the database's
-- owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "books_search_text_trgm_idx" ON "books" USING gin ("search_text" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "series_name_lower_trgm_idx" ON "series" USING gin (lower("name") gin_trgm_ops);
