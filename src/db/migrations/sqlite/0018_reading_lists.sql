CREATE TABLE `collection_series` (
	`list_id` text NOT NULL,
	`series_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`list_id`, `series_id`),
	FOREIGN KEY (`list_id`) REFERENCES `reading_lists`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `collection_series_series_idx` ON `collection_series` (`series_id`);--> statement-breakpoint
CREATE TABLE `read_list_books` (
	`list_id` text NOT NULL,
	`book_id` text NOT NULL,
	`position` integer NOT NULL,
	PRIMARY KEY(`list_id`, `book_id`),
	FOREIGN KEY (`list_id`) REFERENCES `reading_lists`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`book_id`) REFERENCES `books`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `read_list_books_book_idx` ON `read_list_books` (`book_id`);--> statement-breakpoint
CREATE TABLE `reading_lists` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`summary` text,
	`ordered` integer NOT NULL,
	`owner_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `reading_lists_kind_owner_idx` ON `reading_lists` (`kind`,`owner_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reading_lists_shared_name_uq` ON `reading_lists` (`kind`,lower("name")) WHERE "reading_lists"."owner_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX `reading_lists_owner_name_uq` ON `reading_lists` (`kind`,`owner_id`,lower("name"));--> statement-breakpoint
CREATE TABLE `want_to_read` (
	`user_id` text NOT NULL,
	`series_id` text NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `series_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`series_id`) REFERENCES `series`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `want_to_read_series_idx` ON `want_to_read` (`series_id`);