ALTER TABLE "read_progress" ADD COLUMN "progression" double precision;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "locator" jsonb;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "xpointer" text;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "device" text;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "device_id" text;