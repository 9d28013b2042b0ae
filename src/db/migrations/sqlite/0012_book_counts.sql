ALTER TABLE `series` ADD `present_book_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `series` ADD `deleted_book_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Book counts per series (issue 14), kept by the database on every change of `books` (scans,
-- soft deletion, restores, purges, cascades), so no write path can forget them. `deleted` is
-- stored as 0/1.
CREATE TRIGGER `books_count_insert` AFTER INSERT ON `books` BEGIN
  UPDATE series SET present_book_count = present_book_count + 1 - new.deleted, deleted_book_count = deleted_book_count + new.deleted
  WHERE id = new.series_id;
END;
--> statement-breakpoint
CREATE TRIGGER `books_count_delete` AFTER DELETE ON `books` BEGIN
  UPDATE series SET present_book_count = present_book_count - 1 + old.deleted, deleted_book_count = deleted_book_count - old.deleted
  WHERE id = old.series_id;
END;
--> statement-breakpoint
CREATE TRIGGER `books_count_update` AFTER UPDATE OF deleted, series_id ON `books`
WHEN old.deleted IS NOT new.deleted OR old.series_id IS NOT new.series_id BEGIN
  UPDATE series SET present_book_count = present_book_count - 1 + old.deleted, deleted_book_count = deleted_book_count - old.deleted
  WHERE id = old.series_id;
  UPDATE series SET present_book_count = present_book_count + 1 - new.deleted, deleted_book_count = deleted_book_count + new.deleted
  WHERE id = new.series_id;
END;
--> statement-breakpoint
UPDATE series SET
  present_book_count = (SELECT count(*) FROM books WHERE books.series_id = series.id AND books.deleted = 0),
  deleted_book_count = (SELECT count(*) FROM books WHERE books.series_id = series.id AND books.deleted = 1);
--> statement-breakpoint
-- A book moved to another series' folder kept its old series' sort name as its default-order
-- key (fixed with this migration); deep pages now rely on the two being equal.
UPDATE books SET order_series = (SELECT s.name_sort FROM series s WHERE s.id = books.series_id)
WHERE order_series <> (SELECT s.name_sort FROM series s WHERE s.id = books.series_id);
