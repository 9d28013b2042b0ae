-- Text search through an index (issue 14): FTS5 trigram tables over the books' stored search
-- text and the series' names, external-content tables (they index the rows' own text, keyed by
-- the rows' rowid) kept in sync by triggers. The repositories narrow by them and then apply the
-- same LIKE as before, so results do not change. A VACUUM may renumber rowids of these tables
-- (they have no INTEGER PRIMARY KEY): after one, `INSERT INTO books_search(books_search) VALUES
-- ('rebuild')` (and the same for series_search) realigns the indexes.
CREATE VIRTUAL TABLE `books_search` USING fts5(search_text, content='books', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `books_search_insert` AFTER INSERT ON `books` BEGIN
  INSERT INTO books_search(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
--> statement-breakpoint
CREATE TRIGGER `books_search_delete` AFTER DELETE ON `books` BEGIN
  INSERT INTO books_search(books_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;
--> statement-breakpoint
CREATE TRIGGER `books_search_update` AFTER UPDATE OF search_text ON `books` BEGIN
  INSERT INTO books_search(books_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
  INSERT INTO books_search(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
--> statement-breakpoint
INSERT INTO books_search(books_search) VALUES ('rebuild');
--> statement-breakpoint
CREATE VIRTUAL TABLE `series_search` USING fts5(name, content='series', content_rowid='rowid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `series_search_insert` AFTER INSERT ON `series` BEGIN
  INSERT INTO series_search(rowid, name) VALUES (new.rowid, new.name);
END;
--> statement-breakpoint
CREATE TRIGGER `series_search_delete` AFTER DELETE ON `series` BEGIN
  INSERT INTO series_search(series_search, rowid, name) VALUES ('delete', old.rowid, old.name);
END;
--> statement-breakpoint
CREATE TRIGGER `series_search_update` AFTER UPDATE OF name ON `series` BEGIN
  INSERT INTO series_search(series_search, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO series_search(rowid, name) VALUES (new.rowid, new.name);
END;
--> statement-breakpoint
INSERT INTO series_search(series_search) VALUES ('rebuild');
