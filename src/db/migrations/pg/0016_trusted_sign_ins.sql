CREATE TABLE "trusted_sign_ins" (
	"address" text NOT NULL,
	"account" text NOT NULL,
	"signed_in_at" timestamp with time zone NOT NULL,
	CONSTRAINT "trusted_sign_ins_address_account_pk" PRIMARY KEY("address","account")
);
--> statement-breakpoint
CREATE INDEX "trusted_sign_ins_time_idx" ON "trusted_sign_ins" USING btree ("signed_in_at");