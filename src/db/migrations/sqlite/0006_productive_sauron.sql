CREATE TABLE `login_failures` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`failed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_failures_key_idx` ON `login_failures` (`key`,`failed_at`);--> statement-breakpoint
CREATE INDEX `login_failures_time_idx` ON `login_failures` (`failed_at`);--> statement-breakpoint
CREATE TABLE `oidc_pending_sign_ins` (
	`state` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`code_verifier` text NOT NULL,
	`nonce` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oidc_pending_sign_ins_created_idx` ON `oidc_pending_sign_ins` (`created_at`);