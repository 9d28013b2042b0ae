CREATE TABLE `job_fires` (
	`job` text NOT NULL,
	`fire_at` integer NOT NULL,
	PRIMARY KEY(`job`, `fire_at`)
);
--> statement-breakpoint
ALTER TABLE `scans` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `scans` ADD `lease_expires_at` integer;