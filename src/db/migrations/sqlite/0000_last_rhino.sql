CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`key_prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_prefix_uq` ON `api_keys` (`key_prefix`);--> statement-breakpoint
CREATE INDEX `api_keys_user_idx` ON `api_keys` (`user_id`);--> statement-breakpoint
CREATE TABLE `book_errors` (
	`id` text PRIMARY KEY NOT NULL,
	`book_id` text NOT NULL,
	`error_type` text NOT NULL,
	`message` text NOT NULL,
	`details` text,
	`occurred_at` integer NOT NULL,
	FOREIGN KEY (`book_id`) REFERENCES `books`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `book_errors_book_idx` ON `book_errors` (`book_id`);--> statement-breakpoint
CREATE INDEX `book_errors_type_idx` ON `book_errors` (`error_type`);--> statement-breakpoint
CREATE TABLE `book_pages` (
	`book_id` text NOT NULL,
	`number` integer NOT NULL,
	`file_name` text NOT NULL,
	`media_type` text NOT NULL,
	`width` integer,
	`height` integer,
	`size` integer,
	PRIMARY KEY(`book_id`, `number`),
	FOREIGN KEY (`book_id`) REFERENCES `books`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `books` (
	`id` text PRIMARY KEY NOT NULL,
	`library_id` text NOT NULL,
	`series_id` text NOT NULL,
	`title` text NOT NULL,
	`title_sort` text,
	`search_text` text NOT NULL,
	`order_series` text NOT NULL,
	`order_number` real NOT NULL,
	`order_title` text NOT NULL,
	`number` integer,
	`number_sort` real,
	`volume` integer,
	`year` integer,
	`summary` text,
	`metadata` text NOT NULL,
	`locked_fields` text NOT NULL,
	`file_format` text NOT NULL,
	`media_type` text NOT NULL,
	`file_hash` text NOT NULL,
	`file_path` text NOT NULL,
	`file_size` integer NOT NULL,
	`file_modified_at` integer NOT NULL,
	`page_count` integer NOT NULL,
	`cover_page` integer,
	`analyzed` integer NOT NULL,
	`analysis_error` text,
	`thumbnail_path` text,
	`custom_cover_path` text,
	`deleted` integer NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`library_id`) REFERENCES `libraries`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `books_library_path_uq` ON `books` (`library_id`,`file_path`);--> statement-breakpoint
CREATE INDEX `books_series_idx` ON `books` (`series_id`,`number_sort`);--> statement-breakpoint
CREATE INDEX `books_hash_idx` ON `books` (`file_hash`);--> statement-breakpoint
CREATE INDEX `books_created_idx` ON `books` (`created_at`);--> statement-breakpoint
CREATE INDEX `books_list_order_idx` ON `books` (`deleted`,`order_series`,`order_number`,`order_title`,`id`);--> statement-breakpoint
CREATE TABLE `duplicate_group_books` (
	`group_id` text NOT NULL,
	`book_id` text NOT NULL,
	PRIMARY KEY(`group_id`, `book_id`),
	FOREIGN KEY (`group_id`) REFERENCES `duplicate_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`book_id`) REFERENCES `books`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `duplicate_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `email_verification_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_verification_tokens_hash_uq` ON `email_verification_tokens` (`token_hash`);--> statement-breakpoint
CREATE TABLE `libraries` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`default_reading_direction` text NOT NULL,
	`series_strategy` text NOT NULL,
	`scanning_config` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `libraries_name_uq` ON `libraries` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `libraries_path_uq` ON `libraries` (`path`);--> statement-breakpoint
CREATE TABLE `oidc_identities` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`subject` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oidc_identities_subject_uq` ON `oidc_identities` (`provider`,`subject`);--> statement-breakpoint
CREATE TABLE `read_progress` (
	`user_id` text NOT NULL,
	`book_id` text NOT NULL,
	`page` integer NOT NULL,
	`completed` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `book_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`book_id`) REFERENCES `books`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `refresh_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`family_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`status` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refresh_tokens_hash_uq` ON `refresh_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `refresh_tokens_family_idx` ON `refresh_tokens` (`family_id`);--> statement-breakpoint
CREATE TABLE `scans` (
	`id` text PRIMARY KEY NOT NULL,
	`library_id` text NOT NULL,
	`mode` text NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`files_discovered` integer NOT NULL,
	`files_processed` integer NOT NULL,
	`series_created` integer NOT NULL,
	`books_added` integer NOT NULL,
	`books_updated` integer NOT NULL,
	`books_deleted` integer NOT NULL,
	`books_restored` integer NOT NULL,
	`books_moved` integer NOT NULL,
	`errors` integer NOT NULL,
	`failure_reason` text,
	`requested_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`library_id`) REFERENCES `libraries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `scans_library_idx` ON `scans` (`library_id`,`requested_at`);--> statement-breakpoint
CREATE INDEX `scans_status_idx` ON `scans` (`status`);--> statement-breakpoint
CREATE TABLE `series` (
	`id` text PRIMARY KEY NOT NULL,
	`library_id` text NOT NULL,
	`series_key` text NOT NULL,
	`name` text NOT NULL,
	`name_sort` text NOT NULL,
	`folder_path` text,
	`summary` text,
	`publisher` text,
	`year` integer,
	`reading_direction` text,
	`locked_fields` text NOT NULL,
	`custom_cover_path` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`library_id`) REFERENCES `libraries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `series_library_key_uq` ON `series` (`library_id`,`series_key`);--> statement-breakpoint
CREATE INDEX `series_name_idx` ON `series` (`name_sort`);--> statement-breakpoint
CREATE TABLE `series_sharing_tags` (
	`series_id` text NOT NULL,
	`sharing_tag_id` text NOT NULL,
	PRIMARY KEY(`series_id`, `sharing_tag_id`),
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sharing_tag_id`) REFERENCES `sharing_tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `series_sharing_tags_tag_idx` ON `series_sharing_tags` (`sharing_tag_id`);--> statement-breakpoint
CREATE TABLE `sharing_tags` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sharing_tags_name_uq` ON `sharing_tags` (`name`);--> statement-breakpoint
CREATE TABLE `user_sharing_grants` (
	`user_id` text NOT NULL,
	`sharing_tag_id` text NOT NULL,
	`access_mode` text NOT NULL,
	PRIMARY KEY(`user_id`, `sharing_tag_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sharing_tag_id`) REFERENCES `sharing_tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`email` text,
	`password_hash` text,
	`role` text NOT NULL,
	`email_verified` integer NOT NULL,
	`disabled` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_username_uq` ON `users` (`username`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_uq` ON `users` (`email`);