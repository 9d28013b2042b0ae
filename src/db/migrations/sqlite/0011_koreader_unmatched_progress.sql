CREATE TABLE `koreader_unmatched_progress` (
	`user_id` text NOT NULL,
	`document` text NOT NULL,
	`percentage` real NOT NULL,
	`progress` text NOT NULL,
	`device` text NOT NULL,
	`device_id` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `document`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `koreader_unmatched_progress_user_time_idx` ON `koreader_unmatched_progress` (`user_id`,`updated_at`);