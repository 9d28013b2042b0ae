CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"key_prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "book_errors" (
	"id" uuid PRIMARY KEY NOT NULL,
	"book_id" uuid NOT NULL,
	"error_type" text NOT NULL,
	"message" text NOT NULL,
	"details" jsonb,
	"occurred_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "book_pages" (
	"book_id" uuid NOT NULL,
	"number" integer NOT NULL,
	"file_name" text NOT NULL,
	"media_type" text NOT NULL,
	"width" integer,
	"height" integer,
	"size" bigint,
	CONSTRAINT "book_pages_book_id_number_pk" PRIMARY KEY("book_id","number")
);
--> statement-breakpoint
CREATE TABLE "books" (
	"id" uuid PRIMARY KEY NOT NULL,
	"library_id" uuid NOT NULL,
	"series_id" uuid NOT NULL,
	"title" text NOT NULL,
	"title_sort" text,
	"search_text" text NOT NULL,
	"order_series" text COLLATE "C" NOT NULL,
	"order_number" double precision NOT NULL,
	"order_title" text COLLATE "C" NOT NULL,
	"number" integer,
	"number_sort" double precision,
	"volume" integer,
	"year" integer,
	"summary" text,
	"metadata" jsonb NOT NULL,
	"locked_fields" jsonb NOT NULL,
	"file_format" text NOT NULL,
	"media_type" text NOT NULL,
	"file_hash" text NOT NULL,
	"file_path" text NOT NULL,
	"file_size" bigint NOT NULL,
	"file_modified_at" bigint NOT NULL,
	"page_count" integer NOT NULL,
	"cover_page" integer,
	"analyzed" boolean NOT NULL,
	"analysis_error" text,
	"thumbnail_path" text,
	"custom_cover_path" text,
	"deleted" boolean NOT NULL,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "duplicate_group_books" (
	"group_id" uuid NOT NULL,
	"book_id" uuid NOT NULL,
	CONSTRAINT "duplicate_group_books_group_id_book_id_pk" PRIMARY KEY("group_id","book_id")
);
--> statement-breakpoint
CREATE TABLE "duplicate_groups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_verification_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "libraries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"path" text NOT NULL,
	"default_reading_direction" text NOT NULL,
	"series_strategy" text NOT NULL,
	"scanning_config" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oidc_identities" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"subject" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "read_progress" (
	"user_id" uuid NOT NULL,
	"book_id" uuid NOT NULL,
	"page" integer NOT NULL,
	"completed" boolean NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "read_progress_user_id_book_id_pk" PRIMARY KEY("user_id","book_id")
);
--> statement-breakpoint
CREATE TABLE "refresh_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"family_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"status" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "scans" (
	"id" uuid PRIMARY KEY NOT NULL,
	"library_id" uuid NOT NULL,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"trigger" text NOT NULL,
	"files_discovered" integer NOT NULL,
	"files_processed" integer NOT NULL,
	"series_created" integer NOT NULL,
	"books_added" integer NOT NULL,
	"books_updated" integer NOT NULL,
	"books_deleted" integer NOT NULL,
	"books_restored" integer NOT NULL,
	"books_moved" integer NOT NULL,
	"errors" integer NOT NULL,
	"failure_reason" text,
	"requested_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "series" (
	"id" uuid PRIMARY KEY NOT NULL,
	"library_id" uuid NOT NULL,
	"series_key" text NOT NULL,
	"name" text NOT NULL,
	"name_sort" text NOT NULL,
	"folder_path" text,
	"summary" text,
	"publisher" text,
	"year" integer,
	"reading_direction" text,
	"locked_fields" jsonb NOT NULL,
	"custom_cover_path" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "series_sharing_tags" (
	"series_id" uuid NOT NULL,
	"sharing_tag_id" uuid NOT NULL,
	CONSTRAINT "series_sharing_tags_series_id_sharing_tag_id_pk" PRIMARY KEY("series_id","sharing_tag_id")
);
--> statement-breakpoint
CREATE TABLE "sharing_tags" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_sharing_grants" (
	"user_id" uuid NOT NULL,
	"sharing_tag_id" uuid NOT NULL,
	"access_mode" text NOT NULL,
	CONSTRAINT "user_sharing_grants_user_id_sharing_tag_id_pk" PRIMARY KEY("user_id","sharing_tag_id")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"email" text,
	"password_hash" text,
	"role" text NOT NULL,
	"email_verified" boolean NOT NULL,
	"disabled" boolean NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_errors" ADD CONSTRAINT "book_errors_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "book_pages" ADD CONSTRAINT "book_pages_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "books" ADD CONSTRAINT "books_library_id_libraries_id_fk" FOREIGN KEY ("library_id") REFERENCES "public"."libraries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "books" ADD CONSTRAINT "books_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "duplicate_group_books" ADD CONSTRAINT "duplicate_group_books_group_id_duplicate_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."duplicate_groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "duplicate_group_books" ADD CONSTRAINT "duplicate_group_books_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verification_tokens" ADD CONSTRAINT "email_verification_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_identities" ADD CONSTRAINT "oidc_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "read_progress" ADD CONSTRAINT "read_progress_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "read_progress" ADD CONSTRAINT "read_progress_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scans" ADD CONSTRAINT "scans_library_id_libraries_id_fk" FOREIGN KEY ("library_id") REFERENCES "public"."libraries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "series" ADD CONSTRAINT "series_library_id_libraries_id_fk" FOREIGN KEY ("library_id") REFERENCES "public"."libraries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "series_sharing_tags" ADD CONSTRAINT "series_sharing_tags_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "series_sharing_tags" ADD CONSTRAINT "series_sharing_tags_sharing_tag_id_sharing_tags_id_fk" FOREIGN KEY ("sharing_tag_id") REFERENCES "public"."sharing_tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_sharing_grants" ADD CONSTRAINT "user_sharing_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "user_sharing_grants" ADD CONSTRAINT "user_sharing_grants_sharing_tag_id_sharing_tags_id_fk" FOREIGN KEY ("sharing_tag_id") REFERENCES "public"."sharing_tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_uq" ON "api_keys" USING btree ("key_prefix");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "book_errors_book_idx" ON "book_errors" USING btree ("book_id");--> statement-breakpoint
CREATE INDEX "book_errors_type_idx" ON "book_errors" USING btree ("error_type");--> statement-breakpoint
CREATE UNIQUE INDEX "books_library_path_uq" ON "books" USING btree ("library_id","file_path");--> statement-breakpoint
CREATE INDEX "books_series_idx" ON "books" USING btree ("series_id","number_sort");--> statement-breakpoint
CREATE INDEX "books_hash_idx" ON "books" USING btree ("file_hash");--> statement-breakpoint
CREATE INDEX "books_created_idx" ON "books" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "books_list_order_idx" ON "books" USING btree ("deleted","order_series","order_number","order_title","id");--> statement-breakpoint
CREATE UNIQUE INDEX "email_verification_tokens_hash_uq" ON "email_verification_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "libraries_name_uq" ON "libraries" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "libraries_path_uq" ON "libraries" USING btree ("path");--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_identities_subject_uq" ON "oidc_identities" USING btree ("provider","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "refresh_tokens_hash_uq" ON "refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "refresh_tokens_family_idx" ON "refresh_tokens" USING btree ("family_id");--> statement-breakpoint
CREATE INDEX "scans_library_idx" ON "scans" USING btree ("library_id","requested_at");--> statement-breakpoint
CREATE INDEX "scans_status_idx" ON "scans" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "series_library_key_uq" ON "series" USING btree ("library_id","series_key");--> statement-breakpoint
CREATE INDEX "series_name_idx" ON "series" USING btree ("name_sort");--> statement-breakpoint
CREATE INDEX "series_sharing_tags_tag_idx" ON "series_sharing_tags" USING btree ("sharing_tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sharing_tags_name_uq" ON "sharing_tags" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_uq" ON "users" USING btree ("username");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_uq" ON "users" USING btree ("email");