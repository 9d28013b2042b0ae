ALTER TABLE `scans` ADD `paths_skipped` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `scans` ADD `links_outside` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `scans` ADD `removals_held` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `scans` ADD `confirm_removals` integer DEFAULT false NOT NULL;