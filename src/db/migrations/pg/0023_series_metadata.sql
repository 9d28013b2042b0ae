CREATE TABLE "series_metadata_values" (
	"series_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"value" text NOT NULL,
	"role" text DEFAULT '' NOT NULL,
	CONSTRAINT "series_metadata_values_series_id_kind_key_role_pk" PRIMARY KEY("series_id","kind","key","role")
);
--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "genres" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "tags" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "authors" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "age_rating" integer;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "language" text;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "status" text;--> statement-breakpoint
ALTER TABLE "series" ADD COLUMN "links" jsonb DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE "series_metadata_values" ADD CONSTRAINT "series_metadata_values_series_id_series_id_fk" FOREIGN KEY ("series_id") REFERENCES "public"."series"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "series_metadata_values_key_idx" ON "series_metadata_values" USING btree ("kind","key","series_id");--> statement-breakpoint
-- Issue 32: what the present books of each series say together, as the settlement now keeps it
-- (src/library/series-settlement.ts): genres, tags and authors of all (one spelling per value
-- ignoring case), the highest age rating, the language of the first book in series order that has one.
UPDATE "series" s SET
  "genres" = coalesce((SELECT jsonb_agg(x.v ORDER BY lower(x.v)) FROM (SELECT min(j.value) AS v FROM "books" b, jsonb_array_elements_text(coalesce(b."metadata"->'genres', '[]'::jsonb)) AS j(value) WHERE b."series_id" = s."id" AND NOT b."deleted" GROUP BY lower(j.value)) x), '[]'::jsonb),
  "tags" = coalesce((SELECT jsonb_agg(x.v ORDER BY lower(x.v)) FROM (SELECT min(j.value) AS v FROM "books" b, jsonb_array_elements_text(coalesce(b."metadata"->'tags', '[]'::jsonb)) AS j(value) WHERE b."series_id" = s."id" AND NOT b."deleted" GROUP BY lower(j.value)) x), '[]'::jsonb),
  "authors" = coalesce((SELECT jsonb_agg(jsonb_build_object('name', x.n, 'role', x.r) ORDER BY lower(x.n), x.r) FROM (SELECT min(j.value->>'name') AS n, j.value->>'role' AS r FROM "books" b, jsonb_array_elements(coalesce(b."metadata"->'authors', '[]'::jsonb)) AS j(value) WHERE b."series_id" = s."id" AND NOT b."deleted" GROUP BY lower(j.value->>'name'), j.value->>'role') x), '[]'::jsonb),
  "age_rating" = (SELECT max((b."metadata"->>'ageRating')::integer) FROM "books" b WHERE b."series_id" = s."id" AND NOT b."deleted"),
  "language" = (SELECT b."metadata"->>'language' FROM "books" b WHERE b."series_id" = s."id" AND NOT b."deleted" AND b."metadata"->>'language' IS NOT NULL ORDER BY b."series_position" NULLS LAST LIMIT 1);
--> statement-breakpoint
INSERT INTO "series_metadata_values" ("series_id", "kind", "key", "value", "role")
  SELECT s."id", 'genre', lower(j.value), j.value, '' FROM "series" s, jsonb_array_elements_text(s."genres") AS j(value) ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "series_metadata_values" ("series_id", "kind", "key", "value", "role")
  SELECT s."id", 'tag', lower(j.value), j.value, '' FROM "series" s, jsonb_array_elements_text(s."tags") AS j(value) ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "series_metadata_values" ("series_id", "kind", "key", "value", "role")
  SELECT s."id", 'author', lower(j.value->>'name'), j.value->>'name', coalesce(j.value->>'role', '') FROM "series" s, jsonb_array_elements(s."authors") AS j(value) WHERE j.value->>'name' IS NOT NULL ON CONFLICT DO NOTHING;
