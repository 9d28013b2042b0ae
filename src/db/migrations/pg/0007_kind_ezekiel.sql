CREATE TABLE "job_fires" (
	"job" text NOT NULL,
	"fire_at" timestamp with time zone NOT NULL,
	CONSTRAINT "job_fires_job_fire_at_pk" PRIMARY KEY("job","fire_at")
);
--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "owner" text;--> statement-breakpoint
ALTER TABLE "scans" ADD COLUMN "lease_expires_at" timestamp with time zone;