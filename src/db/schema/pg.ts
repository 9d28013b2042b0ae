/** The schema built for PostgreSQL (drizzle-kit reads this file: drizzle.pg.config.ts). */
import { defineSchema } from "./define";
import { pgKit } from "./dialects";

export const {
  users, refreshTokens, apiKeys, emailVerificationTokens, oidcIdentities, koreaderKeys, libraries, series, books, bookPages,
  bookErrors, readProgress, koreaderUnmatchedProgress, readerDefaults, seriesReaderSettings, sharingTags, seriesSharingTags, userSharingGrants, duplicateGroups, duplicateGroupBooks,
  scans, loginFailures, trustedSignIns, oidcPendingSignIns, jobFires, jobs, readingLists, collectionSeries, readListBooks, wantToRead, seriesMetadataValues,
} = defineSchema(pgKit);
