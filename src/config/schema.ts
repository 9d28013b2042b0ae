/**
 * The configuration schema: every key, its type and its default, in one place.
 * TypeBox gives us validation with the failing key's path, and the static type of the
 * effective configuration. Objects are closed (additionalProperties: false) so that an
 * unknown key stops the start instead of being silently ignored.
 */
import { Type as T, type Static, type TSchema } from "@sinclair/typebox";
import { availableParallelism } from "node:os";
import { DEFAULT_LIMITS } from "../formats/limits";

const closed = <P extends Record<string, TSchema>>(properties: P) =>
  T.Object(properties, { additionalProperties: false, default: {} });

const Positive = (fallback: number) => T.Integer({ minimum: 1, default: fallback });

export const OidcProviderSchema = T.Object(
  {
    id: T.String({ pattern: "^[a-z0-9][a-z0-9_-]*$" }),
    name: T.String({ minLength: 1 }),
    issuer: T.String({ minLength: 1 }),
    client_id: T.String({ minLength: 1 }),
    client_secret: T.Optional(T.String()),
    scopes: T.Array(T.String(), { default: ["openid", "profile", "email"] }),
    /** Claim holding the user's groups; membership of admin_group makes the user an admin. */
    groups_claim: T.String({ default: "groups" }),
    admin_group: T.Optional(T.String()),
  },
  { additionalProperties: false },
);

export const ConfigSchema = T.Object(
  {
    application: closed({
      host: T.String({ default: "0.0.0.0" }),
      port: T.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
      /** Public URL of the service (links in emails, OPDS); empty = derived from the request. */
      base_url: T.String({ default: "" }),
      data_dir: T.String({ default: "data" }),
      /** Honour X-Forwarded-Proto/-Host/-For from a reverse proxy in front of the service. */
      trust_proxy: T.Boolean({ default: false }),
      /** Add includeSubDomains to Strict-Transport-Security (sent on https answers): every subdomain must then serve https. */
      hsts_include_subdomains: T.Boolean({ default: false }),
      /** Largest request body (JSON, forms) read by any route; uploads have their own limit. */
      max_request_body_bytes: T.Integer({ minimum: 1024, default: 1024 * 1024 }),
      /**
       * HTTP processes sharing the port (`serve --workers` wins): 0 = one per core. One of them
       * runs the background jobs; see docs/scaling.md.
       */
      workers: T.Integer({ minimum: 0, maximum: 256, default: 0 }),
      /** After SIGTERM/SIGINT, how long in-flight requests may finish before they are cut. */
      shutdown_timeout_seconds: T.Integer({ minimum: 0, default: 20 }),
      /**
       * The web interface's language when neither the user's setting nor the browser's
       * Accept-Language names one with a catalog, and the emails' when the recipient chose none.
       */
      default_locale: T.String({ default: "en" }),
    }),
    database: closed({
      type: T.Union([T.Literal("sqlite"), T.Literal("postgres")], { default: "sqlite" }),
      /**
       * Once an installation has had its first admin, a database without users (an empty or
       * missing SQLite file, a PostgreSQL database without Longbox's tables) stops the start as
       * damaged. true starts fresh with an empty catalogue instead (also `serve --start-fresh`);
       * set it for one start only.
       */
      start_fresh: T.Boolean({ default: false }),
      sqlite: closed({
        /** Empty = <application.data_dir>/longbox.db */
        path: T.String({ default: "" }),
      }),
      postgres: closed({
        /** A full connection URL; when set it wins over the separate fields. */
        url: T.String({ default: "" }),
        host: T.String({ default: "127.0.0.1" }),
        port: T.Integer({ minimum: 1, maximum: 65535, default: 5432 }),
        database: T.String({ default: "longbox" }),
        username: T.String({ default: "postgres" }),
        password: T.String({ default: "" }),
        max_connections: Positive(10),
      }),
    }),
    auth: closed({
      jwt_secret: T.String({ default: "" }),
      jwt_expiry_hours: Positive(24),
      refresh_token_enabled: T.Boolean({ default: true }),
      refresh_token_expiry_days: Positive(30),
      email_confirmation_required: T.Boolean({ default: false }),
      registration_enabled: T.Boolean({ default: false }),
      argon2_memory_cost: T.Integer({ minimum: 1024, default: 19456 }),
      argon2_time_cost: Positive(2),
      argon2_parallelism: Positive(1),
      /**
       * Failed logins within login_window_minutes: per address and account before 429, and per
       * account before only addresses without failures for it may try (src/auth/login-throttle.ts).
       */
      login_max_failures: Positive(10),
      /** Failed logins from one address, whatever the usernames, within login_window_minutes before 429. */
      login_max_address_failures: Positive(30),
      login_window_minutes: Positive(15),
      oidc: closed({
        providers: T.Array(OidcProviderSchema, { default: [] }),
      }),
    }),
    email: closed({
      smtp_host: T.String({ default: "" }),
      smtp_port: T.Integer({ minimum: 1, maximum: 65535, default: 587 }),
      smtp_username: T.String({ default: "" }),
      smtp_password: T.String({ default: "" }),
      /** true = implicit TLS (port 465); false = plain or STARTTLS when offered. */
      smtp_secure: T.Boolean({ default: false }),
      smtp_from_name: T.String({ default: "Longbox" }),
      smtp_from_address: T.String({ default: "" }),
      verification_token_expiry_hours: Positive(24),
      verification_url_base: T.String({ default: "" }),
    }),
    logging: closed({
      level: T.Union(
        [T.Literal("error"), T.Literal("warn"), T.Literal("info"), T.Literal("debug"), T.Literal("trace")],
        { default: "info" },
      ),
      file: T.String({ default: "" }),
      format: T.Union([T.Literal("text"), T.Literal("json")], { default: "text" }),
    }),
    files: closed({
      /**
       * Where thumbnails, uploaded covers and the page cache live: `local` = the folders below,
       * `s3` = a bucket of an S3-compatible object storage (files.s3), shared by instances on
       * several machines. The archive cache stays a local folder either way.
       */
      storage: T.Union([T.Literal("local"), T.Literal("s3")], { default: "local" }),
      s3: closed({
        bucket: T.String({ default: "" }),
        /** The storage's URL (MinIO, Garage, R2...); empty = AWS S3 in files.s3.region. */
        endpoint: T.String({ default: "" }),
        /** Empty = Bun's default (us-east-1, or S3_REGION / AWS_REGION). */
        region: T.String({ default: "" }),
        /** Empty = taken from S3_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID (and the secret likewise). */
        access_key_id: T.String({ default: "" }),
        secret_access_key: T.String({ default: "" }),
        /** Prepended to every key (e.g. `longbox/`), so that one bucket can hold other things too. */
        prefix: T.String({ default: "", pattern: "^([^/].*)?$" }),
      }),
      /** Empty = <application.data_dir>/thumbnails */
      thumbnail_dir: T.String({ default: "" }),
      /** Empty = <application.data_dir>/covers */
      cover_dir: T.String({ default: "" }),
      thumbnail_format: T.Union([T.Literal("webp"), T.Literal("jpeg")], { default: "webp" }),
      thumbnail_height: T.Integer({ minimum: 32, maximum: 4096, default: 400 }),
      /** Thumbnails a process that runs jobs makes at once (the queue is shared by every such process). */
      thumbnail_concurrency: T.Integer({ minimum: 1, maximum: 64, default: availableParallelism() }),
      max_cover_upload_bytes: T.Integer({ minimum: 1024, default: 10 * 1024 * 1024 }),
      /** Rendered (PDF) and resized pages. Empty = <application.data_dir>/page-cache */
      page_cache_dir: T.String({ default: "" }),
      /** Size cap of the page cache; the least recently used pages go first. 0 = no cache. */
      page_cache_max_mb: T.Integer({ minimum: 0, default: 512 }),
      /**
       * Memory all image decoding may hold at once (page reads and scaling, thumbnails); decodes
       * wait for room, and one that needs more than all of it is refused (422).
       */
      decode_budget_mb: T.Integer({ minimum: 64, default: 512 }),
      /** Books extracted once for reading (solid 7z, compressed tar). Empty = <application.data_dir>/archive-cache */
      archive_cache_dir: T.String({ default: "" }),
      /** Size cap of the archive cache, least recently used books first. 0 = extract on every read. */
      archive_cache_max_mb: T.Integer({ minimum: 0, default: 1024 }),
    }),
    scanner: closed({
      concurrency: T.Integer({ minimum: 1, maximum: 64, default: availableParallelism() }),
      // The format readers' own defaults (src/formats/limits.ts): one set of numbers.
      max_entry_bytes: T.Integer({ minimum: 1024, default: DEFAULT_LIMITS.maxEntryBytes }),
      max_entries: T.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxEntries }),
      max_compression_ratio: T.Integer({ minimum: 2, default: DEFAULT_LIMITS.maxCompressionRatio }),
      max_image_pixels: T.Integer({ minimum: 1, default: DEFAULT_LIMITS.maxPixels }),
      book_timeout_seconds: Positive(120),
      /**
       * Watching: changed folders are rescanned once the library has been quiet this long, and
       * files still being written (size or time still moving) wait for the next window.
       */
      watch_quiet_seconds: T.Number({ minimum: 0.2, maximum: 3600, default: 10 }),
      /** false = no library is watched or polled, whatever its scanning_config says. */
      watch_enabled: T.Boolean({ default: true }),
      /**
       * A scan that would remove more than this share of a library's books (or finds its folder
       * empty) removes nothing and waits for an admin's confirmation: an unmounted share looks
       * exactly like deleted books. 100 = never hold removals back (except for an empty folder).
       */
      max_removal_percent: T.Integer({ minimum: 0, maximum: 100, default: 50 }),
      /**
       * How long one book is retried while the database is unreachable or the disk is full
       * before the scan stops (failed, saying why). Such failures are never book errors.
       */
      transient_retry_seconds: T.Integer({ minimum: 0, default: 30 }),
      /**
       * How long a running scan stays held by its process without a heartbeat (renewed every
       * third of it). When the process dies, another process that runs jobs takes the scan over
       * this long after its last heartbeat (PostgreSQL with several instances).
       */
      job_lease_seconds: T.Number({ minimum: 0.3, maximum: 3600, default: 30 }),
      /**
       * A running scan whose process stopped (or stalled past its lease) is taken over and run
       * again by another process; the takeover that reaches this count ends it failed instead,
       * so a scan that kills every process running it (a book that crashes it) cannot take
       * every instance down in turn. 1 = never run again once its process stopped.
       */
      scan_takeover_limit: T.Integer({ minimum: 1, maximum: 100, default: 3 }),
      /**
       * A scan that fails for a transient cause (past transient_retry_seconds) is queued again
       * up to this many times, waiting retry_backoff_seconds, then twice that, and so on; 0 =
       * it ends failed at once. Thumbnail and duplicate detection jobs are retried the same way.
       */
      retry_attempts: T.Integer({ minimum: 0, maximum: 20, default: 3 }),
      retry_backoff_seconds: T.Number({ minimum: 0.1, maximum: 86_400, default: 60 }),
    }),
    /** `longbox backup` and the scheduled backups (README, "Backups"). */
    backup: closed({
      /** Where backups are written (and the scheduled ones pruned). Empty = <application.data_dir>/backups */
      dir: T.String({ default: "" }),
      /**
       * When the scheduled backup runs: a cron expression (minute hour day month weekday, or six
       * fields with seconds first) in the server's time zone; empty = no scheduled backups. One
       * process across every instance on the database makes each one.
       */
      schedule: T.String({ default: "30 3 * * *" }),
      /** Backups kept in backup.dir: after each scheduled one, the oldest beyond this are removed. */
      keep: T.Integer({ minimum: 1, maximum: 1000, default: 7 }),
    }),
    plugins: closed({
      /** Folder of third-party format plugins; empty = none. */
      dir: T.String({ default: "" }),
    }),
    opds: closed({
      enabled: T.Boolean({ default: true }),
    }),
    /** KOReader progress sync (kosync) under /koreader. */
    koreader_api: closed({
      enabled: T.Boolean({ default: true }),
    }),
    /** A Komga-compatible API for Komga clients (Mihon's extension, Komelia, Komic); docs/komga-api.md. */
    komga_api: closed({
      enabled: T.Boolean({ default: false }),
      /** Mounted under /<prefix>: clients are given http://host:port/<prefix> as the server address. */
      prefix: T.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$", maxLength: 64, default: "komga" }),
      /** Lifetime of a KOMGA-SESSION cookie. */
      session_days: T.Integer({ minimum: 1, maximum: 365, default: 7 }),
      /** Lifetime of a komga-remember-me cookie (set when a client asks with remember-me=true). */
      remember_me_days: T.Integer({ minimum: 1, maximum: 3650, default: 30 }),
    }),
    /** Encrypts secrets the service stores in its database (SERVICE_ENCRYPTION_KEY). */
    encryption_key: T.String({ default: "" }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;
export type OidcProviderConfig = Static<typeof OidcProviderSchema>;

/** Keys whose values are masked when the configuration is printed or logged. */
export const SECRET_KEYS = new Set([
  "auth.jwt_secret",
  "database.postgres.password",
  "database.postgres.url",
  "email.smtp_password",
  "auth.oidc.providers[].client_secret",
  "encryption_key",
  "files.s3.secret_access_key",
]);
