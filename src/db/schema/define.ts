/**
 * The catalogue schema, written once and built for each database by ./pg.ts and ./sqlite.ts.
 * Both dialect kits expose the same builder names (see ./dialects.ts), so the two schemas cannot
 * drift apart: same tables, columns, indexes and value types. After a change, run
 * `npm run db:generate` to write the migrations of both databases.
 */
import { sql } from "drizzle-orm";
import type { SchemaKit } from "./dialects";
import { SERIES_STATUSES, type LibraryScanningConfig, type ReaderSettings, type ReadiumLocator, type SeriesLink, type StoredBookMetadata } from "./types";
import type { Author } from "../../formats/contract";

export function defineSchema(d: SchemaKit) {
  const id = () => d.uuid("id").primaryKey();
  const ref = (name: string) => d.uuid(name);
  const time = (name: string) => d.timestamp(name);
  const createdAt = () => time("created_at").notNull();
  const updatedAt = () => time("updated_at").notNull();

  const users = d.table(
    "users",
    {
      id: id(),
      username: d.text("username").notNull(),
      email: d.text("email"),
      passwordHash: d.text("password_hash"),
      role: d.text("role", { enum: ["admin", "user"] }).notNull(),
      emailVerified: d.boolean("email_verified").notNull(),
      disabled: d.boolean("disabled").notNull(),
      /**
       * Raised when the password changes: access tokens (and any session credential) issued
       * under an older version stop working.
       */
      tokenVersion: d.integer("token_version").notNull().default(0),
      /** The web interface's and the emails' language (a catalog's locale); null = the browser's, else the server's default. */
      locale: d.text("locale"),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    // Unique regardless of case: `Alice` cannot register beside `alice` (lookups use lower() too).
    (t) => [
      d.uniqueIndex("users_username_lower_uq").on(sql`lower(${t.username})`),
      d.uniqueIndex("users_email_lower_uq").on(sql`lower(${t.email})`),
    ],
  );

  const refreshTokens = d.table(
    "refresh_tokens",
    {
      id: id(),
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      familyId: ref("family_id").notNull(),
      tokenHash: d.text("token_hash").notNull(),
      /** The account's token version when the family began: a family outlives no password change. */
      tokenVersion: d.integer("token_version").notNull().default(0),
      status: d.text("status", { enum: ["active", "used", "revoked"] }).notNull(),
      expiresAt: time("expires_at").notNull(),
      createdAt: createdAt(),
      usedAt: time("used_at"),
    },
    (t) => [d.uniqueIndex("refresh_tokens_hash_uq").on(t.tokenHash), d.index("refresh_tokens_family_idx").on(t.familyId)],
  );

  const apiKeys = d.table(
    "api_keys",
    {
      id: id(),
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      name: d.text("name").notNull(),
      keyPrefix: d.text("key_prefix").notNull(),
      keyHash: d.text("key_hash").notNull(),
      /** What the key may do (src/auth/api-keys.ts): "full", or "reader" (read, record reading progress). */
      scope: d.text("scope", { enum: ["full", "reader"] }).notNull().default("full"),
      createdAt: createdAt(),
      expiresAt: time("expires_at"),
      lastUsedAt: time("last_used_at"),
    },
    (t) => [d.uniqueIndex("api_keys_prefix_uq").on(t.keyPrefix), d.index("api_keys_user_idx").on(t.userId)],
  );

  const emailVerificationTokens = d.table(
    "email_verification_tokens",
    {
      id: id(),
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      tokenHash: d.text("token_hash").notNull(),
      expiresAt: time("expires_at").notNull(),
      usedAt: time("used_at"),
      createdAt: createdAt(),
    },
    (t) => [d.uniqueIndex("email_verification_tokens_hash_uq").on(t.tokenHash)],
  );

  const oidcIdentities = d.table(
    "oidc_identities",
    {
      id: id(),
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      provider: d.text("provider").notNull(),
      subject: d.text("subject").notNull(),
      createdAt: createdAt(),
    },
    (t) => [d.uniqueIndex("oidc_identities_subject_uq").on(t.provider, t.subject)],
  );

  /**
   * A user's KOReader sync key: KOReader sends the MD5 of it with every sync, so what is stored
   * is an Argon2 hash of that MD5, never the key or its MD5.
   */
  const koreaderKeys = d.table("koreader_keys", {
    userId: ref("user_id").primaryKey().references(() => users.id, { onDelete: "cascade" }),
    keyHash: d.text("key_hash").notNull(),
    createdAt: createdAt(),
  });

  const libraries = d.table(
    "libraries",
    {
      id: id(),
      name: d.text("name").notNull(),
      path: d.text("path").notNull(),
      defaultReadingDirection: d.text("default_reading_direction", { enum: ["ltr", "rtl", "ttb", "webtoon"] }).notNull(),
      seriesStrategy: d.text("series_strategy", {
        enum: ["series_volume", "flat", "publisher_hierarchy", "calibre"],
      }).notNull(),
      scanningConfig: d.jsonb("scanning_config").$type<LibraryScanningConfig>().notNull(),
      /** The folder was a mount point at the last completed scan (see src/library/mount-point.ts). */
      rootMountPoint: d.boolean("root_mount_point").notNull().default(false),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [d.uniqueIndex("libraries_name_uq").on(t.name), d.uniqueIndex("libraries_path_uq").on(t.path)],
  );

  const series = d.table(
    "series",
    {
      id: id(),
      libraryId: ref("library_id").notNull().references(() => libraries.id, { onDelete: "cascade" }),
      /** Identity of the series inside its library, as the series strategy derives it. */
      seriesKey: d.text("series_key").notNull(),
      name: d.text("name").notNull(),
      nameSort: d.text("name_sort").notNull(),
      folderPath: d.text("folder_path"),
      summary: d.text("summary"),
      publisher: d.text("publisher"),
      year: d.integer("year"),
      readingDirection: d.text("reading_direction", { enum: ["ltr", "rtl", "ttb", "webtoon"] }),
      /**
       * What the series' present books say together (src/library/series-settlement.ts: genres,
       * tags and authors of all, the highest age rating, the first book's language), or what an
       * admin set. Genres, tags and authors are also rows of series_metadata_values, which the
       * filters and the value lists read.
       */
      genres: d.jsonb("genres").$type<string[]>().notNull().default(sql`'[]'`),
      tags: d.jsonb("tags").$type<string[]>().notNull().default(sql`'[]'`),
      authors: d.jsonb("authors").$type<Author[]>().notNull().default(sql`'[]'`),
      /** The youngest age the series is meant for (its highest book's rating). */
      ageRating: d.integer("age_rating"),
      language: d.text("language"),
      /** Publication status (Komga's); only an admin sets it. */
      status: d.text("status", { enum: SERIES_STATUSES }),
      /** Web pages about the series (http and https only); only an admin sets them. */
      links: d.jsonb("links").$type<SeriesLink[]>().notNull().default(sql`'[]'`),
      /** Fields an admin edited; a scan never overwrites them. */
      lockedFields: d.jsonb("locked_fields").$type<string[]>().notNull(),
      customCoverPath: d.text("custom_cover_path"),
      /**
       * The series' present and soft-deleted books, kept by triggers on `books` (migrations
       * 0012, and 0015 on PostgreSQL for inserts): list totals and library counts add these up
       * per series instead of counting every book on every request (issue 14). Never written by
       * the application.
       */
      presentBookCount: d.integer("present_book_count").notNull().default(0),
      deletedBookCount: d.integer("deleted_book_count").notNull().default(0),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [d.uniqueIndex("series_library_key_uq").on(t.libraryId, t.seriesKey), d.index("series_name_idx").on(t.nameSort)],
  );

  /**
   * The series' genres, tags and authors one per row (issue 32), as series.genres, .tags and
   * .authors hold them, so that a filter by genre is an index lookup instead of reading the JSON
   * of every book, and the value lists (Komga's /api/v1/genres...) a scan of this table. Written
   * with those columns, only by SeriesMetadataValues (src/db/repositories/series-metadata-values.ts);
   * migration 0023 (SQLite 0021) filled it from the books catalogued before. `key` is the value
   * lower-cased (filters ignore case); `role` is an author's role, "" for the other kinds.
   */
  const seriesMetadataValues = d.table(
    "series_metadata_values",
    {
      seriesId: ref("series_id").notNull().references(() => series.id, { onDelete: "cascade" }),
      kind: d.text("kind", { enum: ["genre", "tag", "author"] }).notNull(),
      key: d.text("key").notNull(),
      value: d.text("value").notNull(),
      role: d.text("role").notNull().default(""),
    },
    (t) => [d.primaryKey({ columns: [t.seriesId, t.kind, t.key, t.role] }), d.index("series_metadata_values_key_idx").on(t.kind, t.key, t.seriesId)],
  );

  const books = d.table(
    "books",
    {
      id: id(),
      libraryId: ref("library_id").notNull().references(() => libraries.id, { onDelete: "cascade" }),
      seriesId: ref("series_id").notNull().references(() => series.id, { onDelete: "cascade" }),
      title: d.text("title").notNull(),
      titleSort: d.text("title_sort"),
      /** Lower-cased title and author names, kept with the row so text search reads one column. */
      searchText: d.text("search_text").notNull(),
      /**
       * The default list order, kept with the row so an index serves it (see
       * CatalogueRepository.refreshOrderKeys): the series' sort name, the number (unnumbered
       * last), the lower-cased title.
       */
      orderSeries: d.sortKey("order_series").notNull(),
      orderNumber: d.doublePrecision("order_number").notNull(),
      orderTitle: d.sortKey("order_title").notNull(),
      number: d.integer("number"),
      numberSort: d.doublePrecision("number_sort"),
      /**
       * The book's place (1, 2, ...) in its series' reading order (src/library/series-order.ts):
       * numbered books by number, then the unnumbered in natural order of their names. Kept by
       * SeriesSettlement after every change of the series' books; null for a soft-deleted book.
       */
      seriesPosition: d.integer("series_position"),
      /**
       * The collections and read lists the book's metadata names (SeriesGroup, StoryArc,
       * AlternateSeries) changed since they were last applied to the shared lists: set when a
       * scan writes such a change, cleared by MetadataLists once applied (src/library/metadata-lists.ts).
       */
      listsPending: d.boolean("lists_pending").notNull().default(false),
      volume: d.integer("volume"),
      year: d.integer("year"),
      summary: d.text("summary"),
      metadata: d.jsonb("metadata").$type<StoredBookMetadata>().notNull(),
      lockedFields: d.jsonb("locked_fields").$type<string[]>().notNull(),
      fileFormat: d.text("file_format").notNull(),
      mediaType: d.text("media_type").notNull(),
      fileHash: d.text("file_hash").notNull(),
      /**
       * KOReader's document ids (kosync): the partial MD5 of the content and the MD5 of the file
       * name. Null until a scan computes them (books catalogued before they existed).
       */
      partialMd5: d.text("partial_md5"),
      fileNameMd5: d.text("file_name_md5"),
      filePath: d.text("file_path").notNull(),
      fileSize: d.bigint("file_size", { mode: "number" }).notNull(),
      fileModifiedAt: d.bigint("file_modified_at", { mode: "number" }).notNull(),
      pageCount: d.integer("page_count").notNull(),
      coverPage: d.integer("cover_page"),
      analyzed: d.boolean("analyzed").notNull(),
      analysisError: d.text("analysis_error"),
      thumbnailPath: d.text("thumbnail_path"),
      customCoverPath: d.text("custom_cover_path"),
      deleted: d.boolean("deleted").notNull(),
      deletedAt: time("deleted_at"),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [
      d.uniqueIndex("books_library_path_uq").on(t.libraryId, t.filePath),
      d.index("books_series_idx").on(t.seriesId, t.numberSort),
      // A series' reading order (BookQueries' inSeriesOrder).
      d.index("books_series_position_idx").on(t.seriesId, t.seriesPosition),
      d.index("books_hash_idx").on(t.fileHash),
      d.index("books_partial_md5_idx").on(t.partialMd5),
      d.index("books_file_name_md5_idx").on(t.fileNameMd5),
      d.index("books_created_idx").on(t.createdAt),
      d.index("books_list_order_idx").on(t.deleted, t.orderSeries, t.orderNumber, t.orderTitle, t.id),
      // Covering indexes for counts (issue 14): a library's present books, a series' present
      // books (the series list's book counts), answered from the index alone.
      d.index("books_library_present_idx").on(t.libraryId, t.deleted, t.seriesId),
      d.index("books_series_present_idx").on(t.seriesId, t.deleted, t.id),
    ],
  );

  const bookPages = d.table(
    "book_pages",
    {
      bookId: ref("book_id").notNull().references(() => books.id, { onDelete: "cascade" }),
      number: d.integer("number").notNull(),
      fileName: d.text("file_name").notNull(),
      mediaType: d.text("media_type").notNull(),
      width: d.integer("width"),
      height: d.integer("height"),
      size: d.bigint("size", { mode: "number" }),
    },
    (t) => [d.primaryKey({ columns: [t.bookId, t.number] })],
  );

  const bookErrors = d.table(
    "book_errors",
    {
      id: id(),
      bookId: ref("book_id").notNull().references(() => books.id, { onDelete: "cascade" }),
      errorType: d.text("error_type").notNull(),
      message: d.text("message").notNull(),
      details: d.jsonb("details").$type<Record<string, unknown>>(),
      occurredAt: time("occurred_at").notNull(),
    },
    (t) => [d.index("book_errors_book_idx").on(t.bookId), d.index("book_errors_type_idx").on(t.errorType)],
  );

  const readProgress = d.table(
    "read_progress",
    {
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      bookId: ref("book_id").notNull().references(() => books.id, { onDelete: "cascade" }),
      /** 1-based; for an EPUB the spine item, so it agrees with the page routes and OPDS pse:lastRead. */
      page: d.integer("page").notNull(),
      completed: d.boolean("completed").notNull(),
      /** How far through the whole book, 0..1; only reflowable books (EPUB) record it. */
      progression: d.doublePrecision("progression"),
      /** The web reader's exact position in an EPUB. */
      locator: d.jsonb("locator").$type<ReadiumLocator>(),
      /** KOReader's position in an EPUB (a CREngine XPointer), given back to KOReader as it was pushed. */
      xpointer: d.text("xpointer"),
      /** The device that wrote the progress, as KOReader names it (null for Longbox's own clients). */
      device: d.text("device"),
      deviceId: d.text("device_id"),
      /** The server's time of the write: the last writer wins. */
      updatedAt: updatedAt(),
    },
    (t) => [d.primaryKey({ columns: [t.userId, t.bookId] })],
  );

  /**
   * Positions KOReader pushed for documents that name no book the user may see (not catalogued
   * yet, or hidden), kept per user and document id as the official kosync server keeps any
   * document's. Taken over as read progress once a visible book has that id
   * (src/library/koreader-sync.ts).
   */
  const koreaderUnmatchedProgress = d.table(
    "koreader_unmatched_progress",
    {
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      document: d.text("document").notNull(),
      percentage: d.doublePrecision("percentage").notNull(),
      progress: d.text("progress").notNull(),
      device: d.text("device").notNull(),
      deviceId: d.text("device_id").notNull(),
      updatedAt: updatedAt(),
    },
    (t) => [d.primaryKey({ columns: [t.userId, t.document] }), d.index("koreader_unmatched_progress_user_time_idx").on(t.userId, t.updatedAt)],
  );

  /** Each user's default reader settings (the web readers keep them per user, not per browser). */
  const readerDefaults = d.table("reader_defaults", {
    userId: ref("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    settings: d.jsonb("settings").$type<ReaderSettings>().notNull(),
    updatedAt: updatedAt(),
  });

  /** A user's reader settings for one series, over their defaults. */
  const seriesReaderSettings = d.table(
    "series_reader_settings",
    {
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      seriesId: ref("series_id").notNull().references(() => series.id, { onDelete: "cascade" }),
      settings: d.jsonb("settings").$type<ReaderSettings>().notNull(),
      updatedAt: updatedAt(),
    },
    (t) => [d.primaryKey({ columns: [t.userId, t.seriesId] }), d.index("series_reader_settings_series_idx").on(t.seriesId)],
  );

  const sharingTags = d.table(
    "sharing_tags",
    {
      id: id(),
      name: d.text("name").notNull(),
      description: d.text("description"),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    (t) => [d.uniqueIndex("sharing_tags_name_uq").on(t.name)],
  );

  const seriesSharingTags = d.table(
    "series_sharing_tags",
    {
      seriesId: ref("series_id").notNull().references(() => series.id, { onDelete: "cascade" }),
      sharingTagId: ref("sharing_tag_id").notNull().references(() => sharingTags.id, { onDelete: "cascade" }),
    },
    (t) => [d.primaryKey({ columns: [t.seriesId, t.sharingTagId] }), d.index("series_sharing_tags_tag_idx").on(t.sharingTagId)],
  );

  const userSharingGrants = d.table(
    "user_sharing_grants",
    {
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      sharingTagId: ref("sharing_tag_id").notNull().references(() => sharingTags.id, { onDelete: "cascade" }),
      accessMode: d.text("access_mode", { enum: ["allow", "deny"] }).notNull(),
    },
    (t) => [d.primaryKey({ columns: [t.userId, t.sharingTagId] })],
  );

  const duplicateGroups = d.table("duplicate_groups", {
    id: id(),
    kind: d.text("kind", { enum: ["hash", "metadata"] }).notNull(),
    key: d.text("key").notNull(),
    createdAt: createdAt(),
  });

  const duplicateGroupBooks = d.table(
    "duplicate_group_books",
    {
      groupId: ref("group_id").notNull().references(() => duplicateGroups.id, { onDelete: "cascade" }),
      bookId: ref("book_id").notNull().references(() => books.id, { onDelete: "cascade" }),
    },
    (t) => [d.primaryKey({ columns: [t.groupId, t.bookId] })],
  );

  const scans = d.table(
    "scans",
    {
      id: id(),
      libraryId: ref("library_id").notNull().references(() => libraries.id, { onDelete: "cascade" }),
      mode: d.text("mode", { enum: ["normal", "deep"] }).notNull(),
      status: d.text("status", { enum: ["pending", "running", "completed", "failed", "cancelled"] }).notNull(),
      trigger: d.text("trigger", { enum: ["manual", "schedule", "startup", "watch"] }).notNull(),
      filesDiscovered: d.integer("files_discovered").notNull(),
      filesProcessed: d.integer("files_processed").notNull(),
      seriesCreated: d.integer("series_created").notNull(),
      booksAdded: d.integer("books_added").notNull(),
      booksUpdated: d.integer("books_updated").notNull(),
      booksDeleted: d.integer("books_deleted").notNull(),
      booksRestored: d.integer("books_restored").notNull(),
      booksMoved: d.integer("books_moved").notNull(),
      errors: d.integer("errors").notNull(),
      /** Files and folders that could not be read (left alone, reported in the log). */
      pathsSkipped: d.integer("paths_skipped").notNull().default(0),
      /** Symbolic links leading out of the library: never followed. */
      linksOutside: d.integer("links_outside").notNull().default(0),
      /** Removals the suspicious-scan guard held back (0 when it did not trip). */
      removalsHeld: d.integer("removals_held").notNull().default(0),
      /** Series whose name the scan changed (the series name rule, docs/api.md). */
      seriesRenamed: d.integer("series_renamed").notNull().default(0),
      /** An admin confirmed that this scan may remove books past the guard. */
      confirmRemovals: d.boolean("confirm_removals").notNull().default(false),
      failureReason: d.text("failure_reason"),
      requestedAt: time("requested_at").notNull(),
      startedAt: time("started_at"),
      completedAt: time("completed_at"),
      /** The process (instance id) running the scan; null while pending. */
      owner: d.text("owner"),
      /** Until when the owner holds the scan: renewed while it runs, taken over once past. */
      leaseExpiresAt: time("lease_expires_at"),
      /** Times the scan was queued again after a transient failure (scanner.retry_attempts bounds it). */
      retries: d.integer("retries").notNull().default(0),
      /** A scan queued again after a transient failure waits until then (null: runs when claimed). */
      runAfter: time("run_after"),
      /**
       * Times the scan was taken over after its process stopped while running it (a lease that
       * expired); scanner.scan_takeover_limit bounds it.
       */
      takeovers: d.integer("takeovers").notNull().default(0),
    },
    (t) => [d.index("scans_library_idx").on(t.libraryId, t.requestedAt), d.index("scans_status_idx").on(t.status)],
  );

  /**
   * Background work other than scans, as leased jobs (src/jobs/leased-jobs.ts): a book's
   * thumbnail (key = book id), duplicate detection (key = "all"). One row per (kind, key), so
   * asking again joins the queued job; a process that runs jobs claims rows (FOR UPDATE SKIP
   * LOCKED on PostgreSQL) and holds them under a lease, renewed while it works; a row whose
   * lease expired (its process died) is claimed again by another. Thumbnail rows go once done;
   * the duplicate detection row stays, as the state of the latest detection.
   */
  const jobs = d.table(
    "jobs",
    {
      id: id(),
      kind: d.text("kind", { enum: ["thumbnail", "duplicates"] }).notNull(),
      key: d.text("key").notNull(),
      status: d.text("status", { enum: ["pending", "running", "completed", "failed"] }).notNull(),
      /** Claims so far (takeovers included); reset when the job is asked for anew. */
      attempts: d.integer("attempts").notNull().default(0),
      /** When the job was last asked for: a job asked for again while it runs runs once more. */
      requestedAt: time("requested_at").notNull(),
      /** Not claimed before then: a transient failure's backoff. */
      runAfter: time("run_after").notNull(),
      startedAt: time("started_at"),
      completedAt: time("completed_at"),
      owner: d.text("owner"),
      leaseExpiresAt: time("lease_expires_at"),
      lastError: d.text("last_error"),
    },
    (t) => [d.uniqueIndex("jobs_kind_key_uq").on(t.kind, t.key), d.index("jobs_claim_idx").on(t.kind, t.status, t.runAfter)],
  );

  /**
   * Failed sign-ins under their throttle keys (src/auth/login-throttle.ts), in the database so
   * that every process and instance counts the same failures. Rows older than the window go.
   */
  const loginFailures = d.table(
    "login_failures",
    {
      id: id(),
      key: d.text("key").notNull(),
      failedAt: time("failed_at").notNull(),
    },
    (t) => [d.index("login_failures_key_idx").on(t.key, t.failedAt), d.index("login_failures_time_idx").on(t.failedAt)],
  );

  /**
   * Addresses that signed in to an account (src/auth/login-throttle.ts): the account-wide limit
   * does not bind them, so failures from elsewhere cannot lock the owner's usual address. The
   * account is the username as the throttle folds it. Rows older than the trust period go.
   */
  const trustedSignIns = d.table(
    "trusted_sign_ins",
    {
      address: d.text("address").notNull(),
      account: d.text("account").notNull(),
      signedInAt: time("signed_in_at").notNull(),
    },
    (t) => [d.primaryKey({ columns: [t.address, t.account] }), d.index("trusted_sign_ins_time_idx").on(t.signedInAt)],
  );

  /**
   * One row per fire of a scheduled job (a cron tick, a scan-on-start): the first process that
   * inserts the row runs the fire, the others find it there and skip (src/jobs/fire-once.ts).
   * Rows older than a day go.
   */
  const jobFires = d.table(
    "job_fires",
    {
      job: d.text("job").notNull(),
      fireAt: time("fire_at").notNull(),
    },
    (t) => [d.primaryKey({ columns: [t.job, t.fireAt] })],
  );

  /**
   * Single sign-on attempts between the redirect to the provider and its callback, which may
   * reach another process or instance (src/auth/oidc.ts). Short-lived; used once.
   */
  const oidcPendingSignIns = d.table(
    "oidc_pending_sign_ins",
    {
      state: d.text("state").primaryKey(),
      providerId: d.text("provider_id").notNull(),
      /** The PKCE verifier and the nonce, sealed by src/auth/secret-box.ts (never in clear). */
      codeVerifier: d.text("code_verifier").notNull(),
      nonce: d.text("nonce").notNull(),
      redirectUri: d.text("redirect_uri").notNull(),
      createdAt: createdAt(),
      expiresAt: time("expires_at").notNull(),
    },
    (t) => [d.index("oidc_pending_sign_ins_created_idx").on(t.createdAt)],
  );

  /**
   * Users' lists (issue 33): collections of series and read lists of books. A list with an owner
   * is that user's own (private); one without is shared with everyone and only admins change it
   * (Komga's model). What a viewer sees inside a list is always cut by their sharing-tag grants.
   */
  const readingLists = d.table(
    "reading_lists",
    {
      id: id(),
      kind: d.text("kind", { enum: ["collection", "readlist"] }).notNull(),
      name: d.text("name").notNull(),
      summary: d.text("summary"),
      /** Kept in the order given (positions); else a collection shows its series by name. */
      ordered: d.boolean("ordered").notNull(),
      ownerId: ref("owner_id").references(() => users.id, { onDelete: "cascade" }),
      createdAt: createdAt(),
      updatedAt: updatedAt(),
    },
    // Names are unique ignoring case among the shared lists of a kind, and among each owner's:
    // decided by the database, so two processes making the same list from metadata cannot both win.
    (t) => [
      d.index("reading_lists_kind_owner_idx").on(t.kind, t.ownerId),
      d.uniqueIndex("reading_lists_shared_name_uq").on(t.kind, sql`lower(${t.name})`).where(sql`${t.ownerId} is null`),
      d.uniqueIndex("reading_lists_owner_name_uq").on(t.kind, t.ownerId, sql`lower(${t.name})`),
    ],
  );

  /** The items of lists of one kind, with their place in the list. */
  const listItems = (name: string, column: string, target: () => typeof series.id | typeof books.id) =>
    d.table(
      name,
      {
        listId: ref("list_id").notNull().references(() => readingLists.id, { onDelete: "cascade" }),
        itemId: ref(column).notNull().references(target, { onDelete: "cascade" }),
        position: d.integer("position").notNull(),
      },
      (t) => [d.primaryKey({ columns: [t.listId, t.itemId] }), d.index(`${name}_${column.replace(/_id$/, "")}_idx`).on(t.itemId)],
    );
  const collectionSeries = listItems("collection_series", "series_id", () => series.id);
  const readListBooks = listItems("read_list_books", "book_id", () => books.id);

  /** Each user's want-to-read series (Kavita's list). */
  const wantToRead = d.table(
    "want_to_read",
    {
      userId: ref("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
      seriesId: ref("series_id").notNull().references(() => series.id, { onDelete: "cascade" }),
      addedAt: time("added_at").notNull(),
    },
    (t) => [d.primaryKey({ columns: [t.userId, t.seriesId] }), d.index("want_to_read_series_idx").on(t.seriesId)],
  );

  return { jobs, jobFires, loginFailures, trustedSignIns, oidcPendingSignIns, users, refreshTokens, apiKeys, emailVerificationTokens, oidcIdentities, koreaderKeys, libraries, series, seriesMetadataValues, books, bookPages, bookErrors, readProgress, koreaderUnmatchedProgress, readerDefaults, seriesReaderSettings, sharingTags, seriesSharingTags, userSharingGrants, duplicateGroups, duplicateGroupBooks, scans, readingLists, collectionSeries, readListBooks, wantToRead };
}
