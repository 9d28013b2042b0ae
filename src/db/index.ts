/**
 * The data layer's public face: open the database and get the repositories. Nothing outside
 * src/db imports drizzle.
 */
import type { Config } from "../config/schema";
import { openDatabase, type Database } from "./database";
import { AccessRepository } from "./repositories/access";
import { BookQueryRepository } from "./repositories/book-queries";
import { CatalogueRepository } from "./repositories/catalogue";
import { DuplicateRepository } from "./repositories/duplicates";
import { InventoryRepository } from "./repositories/inventory";
import { LibraryRepository } from "./repositories/libraries";
import { JobFireRepository } from "./repositories/job-fires";
import { JobRepository } from "./repositories/jobs";
import { ScanRepository } from "./repositories/scans";
import { SharingTagRepository } from "./repositories/sharing-tags";
import { ApiKeyRepository } from "./repositories/api-keys";
import { EmailVerificationTokenRepository } from "./repositories/email-verification-tokens";
import { OidcIdentityRepository } from "./repositories/oidc-identities";
import { RefreshTokenRepository } from "./repositories/refresh-tokens";
import { UserRepository } from "./repositories/users";
import { MetadataEditRepository } from "./repositories/metadata-edits";
import { ProgressRepository } from "./repositories/progress";
import { KoreaderKeyRepository } from "./repositories/koreader-keys";
import { UnmatchedKoreaderProgressRepository } from "./repositories/koreader-unmatched-progress";
import { SeriesQueryRepository } from "./repositories/series-queries";
import { ReaderSettingsRepository } from "./repositories/reader-settings";
import { ReadingListRepository } from "./repositories/reading-lists";
import { SeriesSettlementRepository } from "./repositories/series-settlement";
import { LoginFailureRepository, PendingSignInRepository, TrustedSignInRepository } from "./repositories/sign-in-state";

export interface Repositories {
  users: UserRepository;
  libraries: LibraryRepository;
  scans: ScanRepository;
  jobFires: JobFireRepository;
  jobs: JobRepository;
  catalogue: CatalogueRepository;
  refreshTokens: RefreshTokenRepository;
  apiKeys: ApiKeyRepository;
  emailVerificationTokens: EmailVerificationTokenRepository;
  oidcIdentities: OidcIdentityRepository;
  books: BookQueryRepository;
  access: AccessRepository;
  duplicates: DuplicateRepository;
  sharingTags: SharingTagRepository;
  inventory: InventoryRepository;
  series: SeriesQueryRepository;
  settlement: SeriesSettlementRepository;
  progress: ProgressRepository;
  koreaderKeys: KoreaderKeyRepository;
  unmatchedKoreaderProgress: UnmatchedKoreaderProgressRepository;
  readerSettings: ReaderSettingsRepository;
  edits: MetadataEditRepository;
  loginFailures: LoginFailureRepository;
  trustedSignIns: TrustedSignInRepository;
  pendingSignIns: PendingSignInRepository;
  readingLists: ReadingListRepository;
}

export interface DataLayer {
  database: Database;
  repositories: Repositories;
}

export function openDataLayer(config: Config, sqliteFile: string): DataLayer {
  const database = openDatabase(config, sqliteFile);
  const access = new AccessRepository(database);
  return {
    database,
    repositories: {
      users: new UserRepository(database),
      libraries: new LibraryRepository(database),
      scans: new ScanRepository(database),
      jobFires: new JobFireRepository(database),
      jobs: new JobRepository(database),
      catalogue: new CatalogueRepository(database),
      refreshTokens: new RefreshTokenRepository(database),
      apiKeys: new ApiKeyRepository(database),
      emailVerificationTokens: new EmailVerificationTokenRepository(database),
      oidcIdentities: new OidcIdentityRepository(database),
      books: new BookQueryRepository(database, access),
      access,
      duplicates: new DuplicateRepository(database),
      sharingTags: new SharingTagRepository(database),
      inventory: new InventoryRepository(database),
      series: new SeriesQueryRepository(database),
      settlement: new SeriesSettlementRepository(database),
      progress: new ProgressRepository(database),
      koreaderKeys: new KoreaderKeyRepository(database),
      unmatchedKoreaderProgress: new UnmatchedKoreaderProgressRepository(database),
      readerSettings: new ReaderSettingsRepository(database),
      edits: new MetadataEditRepository(database),
      loginFailures: new LoginFailureRepository(database),
      trustedSignIns: new TrustedSignInRepository(database),
      pendingSignIns: new PendingSignInRepository(database),
      readingLists: new ReadingListRepository(database),
    },
  };
}

export type { Database, Notifications, TransactionOutcomes } from "./database";
export { isUuid } from "./ids";
export type { ApiKeyRecord, ApiKeyScope } from "./repositories/api-keys";
export type { RefreshTokenRecord } from "./repositories/refresh-tokens";
export type { PendingSignInRecord } from "./repositories/sign-in-state";
export type { UnmatchedKoreaderRecord } from "./repositories/koreader-unmatched-progress";
export type { NewUser, Role, UserChanges, UserRecord } from "./repositories/users";
export type { LibraryRecord, NewLibrary, ReadingDirection, SeriesStrategy } from "./repositories/libraries";
export type { ScanCounters, ScanMode, ScanRecord, ScanState, ScanSummary, ScanTrigger } from "./repositories/scans";
export { ZERO_COUNTERS } from "./repositories/scans";
export { RELEASED } from "./repositories/lease";
export type { ClaimedJob, JobKind, JobRecord } from "./repositories/jobs";
export { transactionConflict, unavailability, type TransactionConflict, type Unavailability } from "./availability";
export type { BookContent, BookErrorRecord, BookSnapshot, PageRecord, SeriesIdentity } from "./repositories/catalogue";
export type { SeriesRename, SettledSeriesFields, SettlementBook, SettlementDecision, SettlementSeries } from "./repositories/series-settlement";
export type { LibraryScanningConfig, ReaderSettings, ReadiumLocator, StoredBookMetadata } from "./schema/types";
export type { BookErrorView, BookFileView, BookFilter, BookSort, BookView } from "./repositories/book-queries";
export type { DuplicateGroupRecord } from "./repositories/duplicates";
export type { FormatInventory, Inventory } from "./repositories/inventory";
export type { AccessMode as SharingAccessMode, SharingGrantRecord, SharingTagRecord } from "./repositories/sharing-tags";
export type { SeriesFilter, SeriesSort, SeriesView } from "./repositories/series-queries";
export type { ListKind, ListViewer, ReadingListChanges, ReadingListFilter, ReadingListRecord } from "./repositories/reading-lists";
export type { ProgressPosition, ProgressRecord } from "./repositories/progress";
export type { KoreaderKeyRecord } from "./repositories/koreader-keys";
export type { BookEdit, CoverOwner, SeriesEdit } from "./repositories/metadata-edits";
export type { AnalysisState, BookMetadataRow } from "./repositories/book-queries";
export type { AuthorFilter, MetadataFilter, ReadStatus, ReadStatusFilter, YearRange } from "./repositories/catalogue-filters";
export { sortName } from "./repositories/catalogue";
export type { BookCondition, BookLeaf, ConditionTree, DateTest, NumberTest, SeriesCondition, SeriesLeaf, TextTest } from "./repositories/condition-trees";
/** An opaque query condition (sharing-tag visibility) passed back into repositories. */
export type { SQL as QueryCondition } from "drizzle-orm";
