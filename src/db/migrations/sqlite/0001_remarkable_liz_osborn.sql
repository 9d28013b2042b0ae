ALTER TABLE `read_progress` ADD `progression` real;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `locator` text;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `xpointer` text;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `device` text;--> statement-breakpoint
ALTER TABLE `read_progress` ADD `device_id` text;