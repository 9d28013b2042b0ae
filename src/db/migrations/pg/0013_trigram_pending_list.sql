-- Text searches read a trigram index's whole pending list: rows written with GIN's fast update
-- wait there, unsorted, until autovacuum merges them, and the default limit (4 MB) holds every
-- book of a fresh scan and of the thumbnail pass that rewrites them. On 10,000 freshly scanned
-- books a search for "series 042" spent 9 ms in the index against 0.7 ms once merged (issue 14).
-- With the smallest limit (64 kB) the writer that fills the list merges it: a search never
-- reads more than 64 kB of it, and writes merge in small batches.
ALTER INDEX "books_search_text_trgm_idx" SET (gin_pending_list_limit = 64);
--> statement-breakpoint
ALTER INDEX "series_name_lower_trgm_idx" SET (gin_pending_list_limit = 64);
