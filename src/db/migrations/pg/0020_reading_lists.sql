CREATE TABLE "collection_series" (
	"list_id" uuid NOT NULL,
	"series_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "collection_series_list_id_series_id_pk" PRIMARY KEY("list_id","series_id")
);
--> statement-breakpoint
CREATE TABLE "read_list_books" (
	"list_id" uuid NOT NULL,
	"book_id" uuid NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "read_list_books_list_id_book_id_pk" PRIMARY KEY("list_id","book_id")
);
--> statement-breakpoint
CREATE TABLE "reading_lists" (
	"id" uuid PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"summary" text,
	"ordered" boolean NOT NULL,
	"owner_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "want_to_read" (
	"user_id" uuid NOT NULL,
	"series_id" uuid NOT NULL,
	"added_at" timestamp with time zone NOT NULL,
	CONSTRAINT "want_to_read_user_id_series_id_pk" PRIMARY KEY("user_id","series_id")
);
--> statement-breakpoint
ALTER TABLE "collection_series" ADD CONSTRAINT "collection_series_list_id_reading_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."reading_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collection_series" ADD CONSTRAINT "collection_series_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "read_list_books" ADD CONSTRAINT "read_list_books_list_id_reading_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."reading_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "read_list_books" ADD CONSTRAINT "read_list_books_book_id_books_id_fk" FOREIGN KEY ("book_id") REFERENCES "public"."books"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reading_lists" ADD CONSTRAINT "reading_lists_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "want_to_read" ADD CONSTRAINT "want_to_read_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "want_to_read" ADD CONSTRAINT "want_to_read_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "collection_series_series_idx" ON "collection_series" USING btree ("series_id");--> statement-breakpoint
CREATE INDEX "read_list_books_book_idx" ON "read_list_books" USING btree ("book_id");--> statement-breakpoint
CREATE INDEX "reading_lists_kind_owner_idx" ON "reading_lists" USING btree ("kind","owner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reading_lists_shared_name_uq" ON "reading_lists" USING btree ("kind",lower("name")) WHERE "reading_lists"."owner_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "reading_lists_owner_name_uq" ON "reading_lists" USING btree ("kind","owner_id",lower("name"));--> statement-breakpoint
CREATE INDEX "want_to_read_series_idx" ON "want_to_read" USING btree ("series_id");