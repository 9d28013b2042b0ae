CREATE INDEX `books_library_present_idx` ON `books` (`library_id`,`deleted`,`series_id`);--> statement-breakpoint
CREATE INDEX `books_series_present_idx` ON `books` (`series_id`,`deleted`,`id`);