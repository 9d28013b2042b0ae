/**
 * Builds the service layer from the configuration: the one place where dependencies are
 * created and handed to whoever needs them (no module singletons).
 */
import { AccessTokens } from "./auth/access-tokens";
import { ApiKeyService } from "./auth/api-keys";
import { Authenticator } from "./auth/authenticator";
import { CookieSessions } from "./auth/cookie-sessions";
import { CredentialRevocations } from "./auth/credential-revocation";
import { LoginService } from "./auth/login";
import { LoginThrottle } from "./auth/login-throttle";
import { SmtpMailer } from "./auth/mailer";
import { OidcService } from "./auth/oidc";
import { PasswordChanges } from "./auth/password-change";
import { passwordHasherFor, type PasswordHasher } from "./auth/passwords";
import { SecretBox } from "./auth/secret-box";
import { RefreshTokens } from "./auth/refresh-tokens";
import { RegistrationService } from "./auth/registration";
import { Sessions } from "./auth/sessions";
import { UserAdministration } from "./auth/user-admin";
import { UserService } from "./auth/users";
import type { Config } from "./config/schema";
import type { DataPaths } from "./config/paths";
import type { Database, Repositories } from "./db";
import { CredentialEvents } from "./events/credential-events";
import { JobEvents } from "./events/job-events";
import { ReadingEvents } from "./events/reading-events";
import { ScanEvents } from "./events/scan-events";
import { ThumbnailEvents } from "./events/thumbnail-events";
import { formatRegistryFor } from "./formats/from-config";
import type { FormatRegistry } from "./formats/registry";
import { ScanSchedules } from "./jobs/scan-schedules";
import { SharingTagService } from "./access/sharing-tags";
import { AccessService } from "./access/visibility";
import { BookService } from "./library/books";
import { CatalogueMetadataService } from "./library/catalogue-metadata";
import { DuplicateService } from "./library/duplicates";
import { FolderBrowser } from "./library/folders";
import { LibraryService } from "./library/libraries";
import { InstallationRecord, recordFirstAdmin } from "./operations/installation";
import { LibraryRefresher } from "./library/library-refresher";
import { LibraryScanner } from "./library/scanner";
import { LibraryWatcher } from "./library/library-watcher";
import { ScanService, type ScanStatusDto } from "./library/scans";
import { ThumbnailQueue } from "./library/thumbnails";
import { BookFileService } from "./library/book-files";
import { CoverService } from "./library/covers";
import { PageCache } from "./library/page-cache";
import { PageService } from "./library/pages";
import { ProgressService } from "./library/progress";
import { BulkActions } from "./library/bulk-actions";
import { KoreaderSyncService } from "./library/koreader-sync";
import { KoreaderKeyService } from "./auth/koreader-keys";
import { PublicationService } from "./library/publications";
import { SeriesService } from "./library/series";
import { ReaderSettingsService } from "./library/reader-settings";
import { ReadingListService } from "./library/reading-lists";
import { ReadListImporter } from "./library/read-list-import";
import { MetadataLists } from "./library/metadata-lists";
import type { Logger } from "./logging/logger";
import { Metrics } from "./operations/metrics";
import { BackupService } from "./operations/backups";
import { databaseDumps } from "./db/dumps";
import { openFileStores } from "./storage/from-config";

export interface Services extends ServiceInputs {
  passwords: PasswordHasher;
  users: UserService;
  userAdministration: UserAdministration;
  passwordChanges: PasswordChanges;
  refreshTokens: RefreshTokens;
  sessions: Sessions;
  cookieSessions: CookieSessions;
  login: LoginService;
  apiKeys: ApiKeyService;
  authenticator: Authenticator;
  registration: RegistrationService;
  oidc: OidcService;
  formats: FormatRegistry;
  scanEvents: ScanEvents<ScanStatusDto>;
  readingEvents: ReadingEvents;
  jobEvents: JobEvents;
  thumbnailEvents: ThumbnailEvents;
  credentialEvents: CredentialEvents;
  thumbnails: ThumbnailQueue;
  libraries: LibraryService;
  scans: ScanService;
  schedules: ScanSchedules;
  watcher: LibraryWatcher;
  libraryRefresher: LibraryRefresher;
  access: AccessService;
  sharingTags: SharingTagService;
  books: BookService;
  duplicates: DuplicateService;
  folders: FolderBrowser;
  metrics: Metrics;
  backups: BackupService;
  series: SeriesService;
  readerSettings: ReaderSettingsService;
  catalogueMetadata: CatalogueMetadataService;
  pages: PageService;
  bookFiles: BookFileService;
  covers: CoverService;
  progress: ProgressService;
  publications: PublicationService;
  koreaderKeys: KoreaderKeyService;
  koreaderSync: KoreaderSyncService;
  readingLists: ReadingListService;
  bulkActions: BulkActions;
  readListImporter: ReadListImporter;
}

export interface ServiceInputs {
  config: Config;
  paths: DataPaths;
  jwtSecret: string;
  /** Encrypts the secrets stored in the database (src/auth/secret-box.ts). */
  encryptionKey: string;
  log: Logger;
  database: Database;
  repositories: Repositories;
}

export async function createServices(inputs: ServiceInputs): Promise<Services> {
  const { config, database, repositories, log } = inputs;
  const auth = config.auth;
  const passwords = passwordHasherFor(config);
  const installation = new InstallationRecord(inputs.paths, config);
  const users = new UserService(repositories, passwords, () => recordFirstAdmin(installation, log));
  const accessTokens = new AccessTokens(inputs.jwtSecret, auth.jwt_expiry_hours);
  const credentialEvents = new CredentialEvents();
  const revocations = new CredentialRevocations(repositories, credentialEvents);
  const refreshTokens = new RefreshTokens(
    database,
    repositories.refreshTokens,
    repositories.users,
    revocations,
    { enabled: auth.refresh_token_enabled, lifetimeDays: auth.refresh_token_expiry_days },
    log,
  );
  const sessions = new Sessions(repositories, accessTokens, refreshTokens, auth.email_confirmation_required);
  const throttle = new LoginThrottle(
    repositories,
    { maxFailures: auth.login_max_failures, maxAddressFailures: auth.login_max_address_failures, windowMs: auth.login_window_minutes * 60_000 },
    credentialEvents,
  );
  const login = new LoginService(repositories, passwords, throttle, sessions, log);
  const apiKeys = new ApiKeyService(repositories, revocations);
  const passwordChanges = new PasswordChanges(database, repositories, passwords, refreshTokens, login, sessions, revocations, log);
  const cookieSessions = new CookieSessions(repositories, refreshTokens, inputs.jwtSecret, auth.email_confirmation_required);

  const formats = await formatRegistryFor(config);
  const files = await openFileStores(config, inputs.paths);
  log.info("generated files (thumbnails, covers, page cache) stored", { in: files.description });
  const access = new AccessService(repositories);
  const scanEvents = new ScanEvents<ScanStatusDto>();
  const readingEvents = new ReadingEvents();
  const jobEvents = new JobEvents();
  const thumbnailEvents = new ThumbnailEvents();
  // Every leased job (scans, thumbnails, duplicate detection) shares the lease and the retries.
  const jobSettings = {
    leaseMs: config.scanner.job_lease_seconds * 1000,
    maxAttempts: config.scanner.retry_attempts + 1,
    backoffMs: config.scanner.retry_backoff_seconds * 1000,
  };
  const thumbnails = new ThumbnailQueue(
    repositories,
    formats,
    { store: files.thumbnails, format: config.files.thumbnail_format, height: config.files.thumbnail_height },
    { ...jobSettings, concurrency: config.files.thumbnail_concurrency },
    thumbnailEvents,
    log,
  );
  const scanner = new LibraryScanner(repositories, formats, log, config.scanner.concurrency, {
    maxRemovalShare: config.scanner.max_removal_percent / 100,
    transientRetryMs: config.scanner.transient_retry_seconds * 1000,
  });
  const scans = new ScanService(repositories, scanner, scanEvents, thumbnails, log, { ...jobSettings, takeoverLimit: config.scanner.scan_takeover_limit });
  const duplicates = new DuplicateService(repositories, access, jobEvents, jobSettings, log);
  const libraries = new LibraryService(repositories, access);
  const schedules = new ScanSchedules(repositories, scans, log);
  libraries.observe(schedules);
  libraries.observe(scans);
  const watcher = new LibraryWatcher(scans, log, {
    enabled: config.scanner.watch_enabled,
    quietMs: config.scanner.watch_quiet_seconds * 1000,
    extensions: new Set(formats.extensions()),
  });
  libraries.observe(watcher);
  // Libraries changed through other processes, for the schedules and the watcher.
  const libraryRefresher = new LibraryRefresher(repositories, [schedules, watcher]);
  libraries.observe(libraryRefresher);
  const books = new BookService(repositories, access, scanner, thumbnails);
  const series = new SeriesService(repositories, access);
  const bookFiles = new BookFileService(repositories, books);
  const pageCache = new PageCache(files.pageCache, config.files.page_cache_max_mb * 1024 * 1024);
  const covers = new CoverService(repositories, books, series, thumbnails, {
    covers: files.covers,
    thumbnails: files.thumbnails,
    format: config.files.thumbnail_format,
    height: config.files.thumbnail_height,
    maxUploadBytes: config.files.max_cover_upload_bytes,
    maxPixels: formats.limits.maxPixels,
  });
  const progress = new ProgressService(repositories, books, formats, readingEvents);
  const readingLists = new ReadingListService(repositories, access);
  const metadataLists = new MetadataLists(repositories);
  scans.afterCompletedScans((libraryId) => metadataLists.syncLibrary(libraryId));
  return {
    ...inputs,
    passwords,
    users,
    userAdministration: new UserAdministration(database, repositories, users, passwords, refreshTokens, passwordChanges, revocations),
    passwordChanges,
    refreshTokens,
    sessions,
    cookieSessions,
    login,
    apiKeys,
    authenticator: new Authenticator(repositories, accessTokens, apiKeys, login, cookieSessions, auth.email_confirmation_required),
    registration: new RegistrationService(config, repositories, users, new SmtpMailer(config.email), log),
    oidc: new OidcService(auth.oidc.providers, repositories, sessions, new SecretBox(inputs.encryptionKey), log),
    formats,
    scanEvents,
    readingEvents,
    jobEvents,
    thumbnailEvents,
    credentialEvents,
    thumbnails,
    libraries,
    scans,
    schedules,
    watcher,
    libraryRefresher,
    access,
    sharingTags: new SharingTagService(database, repositories),
    metrics: new Metrics(repositories, access, thumbnails),
    backups: new BackupService({ dir: inputs.paths.backupDir, keep: config.backup.keep }, databaseDumps(config, inputs.paths.sqliteFile), files.covers, log),
    books,
    duplicates,
    folders: new FolderBrowser(new Set(formats.extensions())),
    series,
    readerSettings: new ReaderSettingsService(repositories, series),
    catalogueMetadata: new CatalogueMetadataService(repositories, access),
    pages: new PageService(repositories, books, formats, pageCache),
    bookFiles,
    covers,
    progress,
    publications: new PublicationService(books, bookFiles, formats),
    koreaderKeys: new KoreaderKeyService(repositories, passwords, throttle, auth.email_confirmation_required),
    koreaderSync: new KoreaderSyncService(repositories, books, progress, formats),
    readingLists,
    readListImporter: new ReadListImporter(repositories, access, readingLists),
    bulkActions: new BulkActions(repositories, access, series, books, progress),
  };
}

/** Background work that runs while the server runs: queued scans and jobs, schedules, watched libraries. */
export async function startBackgroundWork(services: Services): Promise<void> {
  await services.scans.start();
  await services.thumbnails.start();
  await services.duplicates.start();
  await services.schedules.start();
  services.watcher.start();
  await services.libraryRefresher.start();
}

export async function stopBackgroundWork(services: Services): Promise<void> {
  services.libraryRefresher.stop();
  services.watcher.stop();
  services.schedules.stop();
  await services.scans.stop();
  await services.thumbnails.stop();
  await services.duplicates.stop();
}
