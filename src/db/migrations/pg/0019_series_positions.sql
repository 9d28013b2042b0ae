ALTER TABLE "books" ADD COLUMN "series_position" integer;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "series_renamed" integer DEFAULT 0 NOT NULL;