ALTER TABLE `books` ADD `series_position` integer;--> statement-breakpoint
ALTER TABLE `scans` ADD `series_renamed` integer DEFAULT 0 NOT NULL;