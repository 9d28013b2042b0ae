CREATE TABLE "koreader_keys" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "books" ADD COLUMN "partial_md5" text;--> statement-breakpoint
ALTER TABLE "books" ADD COLUMN "file_name_md5" text;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "progression" double precision;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "locator" jsonb;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "xpointer" text;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "device" text;--> statement-breakpoint
ALTER TABLE "read_progress" ADD COLUMN "device_id" text;--> statement-breakpoint
ALTER TABLE "koreader_keys" ADD CONSTRAINT "koreader_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "books_partial_md5_idx" ON "books" USING btree ("partial_md5");--> statement-breakpoint
CREATE INDEX "books_file_name_md5_idx" ON "books" USING btree ("file_name_md5");