CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`requested_at` integer NOT NULL,
	`run_after` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	`owner` text,
	`lease_expires_at` integer,
	`last_error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_kind_key_uq` ON `jobs` (`kind`,`key`);--> statement-breakpoint
CREATE INDEX `jobs_claim_idx` ON `jobs` (`kind`,`status`,`run_after`);--> statement-breakpoint
ALTER TABLE `scans` ADD `retries` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `scans` ADD `run_after` integer;