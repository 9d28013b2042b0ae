ALTER TABLE "series" ADD COLUMN "present_book_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "deleted_book_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Book counts per series (issue 14), kept by the database on every change of `books` (scans,
-- soft deletion, restores, purges, cascades), so no write path can forget them. Triggers per
-- statement with transition tables: a bulk change (a scan marking files missing, a purge)
-- updates each series once, not once per book. Each book changed contributes (series, present,
-- deleted) deltas; the series rows are then locked in id order, so that two statements touching
-- the same series cannot deadlock, and updated once each. The lock is FOR NO KEY UPDATE (what
-- an UPDATE of non-key columns takes): it does not conflict with the FOR KEY SHARE lock that
-- inserting a book takes on its series for the foreign key, so two scan workers inserting books
-- of one series wait for each other instead of deadlocking.
CREATE FUNCTION books_apply_count_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  series_ids uuid[];
  present_deltas integer[];
  deleted_deltas integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.series_id), array_agg(CASE WHEN n.deleted THEN 0 ELSE 1 END), array_agg(CASE WHEN n.deleted THEN 1 ELSE 0 END)
    INTO series_ids, present_deltas, deleted_deltas FROM new_books n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.series_id), array_agg(CASE WHEN o.deleted THEN 0 ELSE -1 END), array_agg(CASE WHEN o.deleted THEN -1 ELSE 0 END)
    INTO series_ids, present_deltas, deleted_deltas FROM old_books o;
  ELSE
    SELECT array_agg(c.series_id), array_agg(c.present), array_agg(c.deleted)
    INTO series_ids, present_deltas, deleted_deltas
    FROM old_books o JOIN new_books n ON n.id = o.id
    CROSS JOIN LATERAL (VALUES
      (o.series_id, CASE WHEN o.deleted THEN 0 ELSE -1 END, CASE WHEN o.deleted THEN -1 ELSE 0 END),
      (n.series_id, CASE WHEN n.deleted THEN 0 ELSE 1 END, CASE WHEN n.deleted THEN 1 ELSE 0 END)
    ) AS c(series_id, present, deleted)
    WHERE o.deleted IS DISTINCT FROM n.deleted OR o.series_id IS DISTINCT FROM n.series_id;
  END IF;
  IF series_ids IS NULL THEN
    RETURN NULL;
  END IF;
  WITH deltas AS (
    SELECT c.series_id, sum(c.present) AS present, sum(c.deleted) AS deleted
    FROM unnest(series_ids, present_deltas, deleted_deltas) AS c(series_id, present, deleted)
    GROUP BY c.series_id HAVING sum(c.present) <> 0 OR sum(c.deleted) <> 0
  ), locked AS (
    SELECT s.id FROM series s JOIN deltas ON deltas.series_id = s.id ORDER BY s.id FOR NO KEY UPDATE OF s
  )
  UPDATE series SET present_book_count = series.present_book_count + deltas.present, deleted_book_count = series.deleted_book_count + deltas.deleted
  FROM deltas JOIN locked ON locked.id = deltas.series_id
  WHERE series.id = deltas.series_id;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER books_count_insert AFTER INSERT ON books REFERENCING NEW TABLE AS new_books FOR EACH STATEMENT EXECUTE FUNCTION books_apply_count_changes();
--> statement-breakpoint
CREATE TRIGGER books_count_delete AFTER DELETE ON books REFERENCING OLD TABLE AS old_books FOR EACH STATEMENT EXECUTE FUNCTION books_apply_count_changes();
--> statement-breakpoint
CREATE TRIGGER books_count_update AFTER UPDATE ON books REFERENCING OLD TABLE AS old_books NEW TABLE AS new_books FOR EACH STATEMENT EXECUTE FUNCTION books_apply_count_changes();
--> statement-breakpoint
UPDATE series SET
  present_book_count = (SELECT count(*) FROM books WHERE books.series_id = series.id AND NOT books.deleted),
  deleted_book_count = (SELECT count(*) FROM books WHERE books.series_id = series.id AND books.deleted);
--> statement-breakpoint
-- A book moved to another series' folder kept its old series' sort name as its default-order
-- key (fixed with this migration); deep pages now rely on the two being equal.
UPDATE books SET order_series = (SELECT s.name_sort FROM series s WHERE s.id = books.series_id)
WHERE order_series <> (SELECT s.name_sort COLLATE "C" FROM series s WHERE s.id = books.series_id);
