CREATE TABLE "koreader_unmatched_progress" (
	"user_id" uuid NOT NULL,
	"document" text NOT NULL,
	"percentage" double precision NOT NULL,
	"progress" text NOT NULL,
	"device" text NOT NULL,
	"device_id" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "koreader_unmatched_progress_user_id_document_pk" PRIMARY KEY("user_id","document")
);
--> statement-breakpoint
ALTER TABLE "koreader_unmatched_progress" ADD CONSTRAINT "koreader_unmatched_progress_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "koreader_unmatched_progress_user_time_idx" ON "koreader_unmatched_progress" USING btree ("user_id","updated_at");