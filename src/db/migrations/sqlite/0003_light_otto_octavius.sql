CREATE TABLE `koreader_keys` (
	`user_id` text PRIMARY KEY NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `books` ADD `partial_md5` text;--> statement-breakpoint
ALTER TABLE `books` ADD `file_name_md5` text;--> statement-breakpoint
CREATE INDEX `books_partial_md5_idx` ON `books` (`partial_md5`);--> statement-breakpoint
CREATE INDEX `books_file_name_md5_idx` ON `books` (`file_name_md5`);--> statement-breakpoint
ALTER TABLE `read_progress` ADD `progression` real;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `locator` text;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `xpointer` text;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `device` text;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `device_id` text;