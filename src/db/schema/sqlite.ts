/** The schema built for SQLite (drizzle-kit reads this file: drizzle.sqlite.config.ts). */
import { defineSchema } from "./define";
import { sqliteKit } from "./dialects";

export const {
  users, refreshTokens, apiKeys, emailVerificationTokens, oidcIdentities, koreaderKeys, libraries, series, books, bookPages,
  bookErrors, readProgress, koreaderUnmatchedProgress, readerDefaults, seriesReaderSettings, sharingTags, seriesSharingTags, userSharingGrants, duplicateGroups, duplicateGroupBooks,
  scans, loginFailures, trustedSignIns, oidcPendingSignIns, jobFires, jobs, readingLists, collectionSeries, readListBooks, wantToRead, seriesMetadataValues,
} = defineSchema(sqliteKit);
