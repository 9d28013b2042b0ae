CREATE TABLE `trusted_sign_ins` (
	`address` text NOT NULL,
	`account` text NOT NULL,
	`signed_in_at` integer NOT NULL,
	PRIMARY KEY(`address`, `account`)
);
--> statement-breakpoint
CREATE INDEX `trusted_sign_ins_time_idx` ON `trusted_sign_ins` (`signed_in_at`);