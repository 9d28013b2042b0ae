/**
 * Starting and stopping the service: configuration -> logger -> data layer (migrated) ->
 * services -> HTTP. Used by `longbox serve` and by the tests, which start real servers.
 */
import { listenAddresses, localUrl } from "./http/listen-addresses";
import { mkdirSync } from "node:fs";
import { rejectUnusableDatabase, rejectUnusableSettings, type LoadedConfig } from "./config/load";
import { dataPaths } from "./config/paths";
import type { Config } from "./config/schema";
import { rejectWeakSecrets, resolveEncryptionKey, resolveJwtSecret } from "./config/secrets";
import { openDataLayer } from "./db";
import { relayEventsThroughDatabase } from "./events/process-relay";
import { createHttpApp } from "./http/app";
import { createScheduler, type Scheduler } from "./jobs";
import { createLogger, type Logger } from "./logging/logger";
import { DamagedInstallationError, InstallationRecord, recordFirstAdmin } from "./operations/installation";
import { createServices, startBackgroundWork, stopBackgroundWork, type Services } from "./services";
import { rejectUnusableBucket } from "./storage/from-config";

/** What a process does: serve HTTP, run the background jobs, or both. */
export type ServerRole = "all" | "web" | "worker";

export interface RunningServer {
  /** Empty for role `worker`, which serves no HTTP. */
  url: string;
  port: number;
  services: Services;
  /** The background jobs; `scheduler.runNow(name)` runs one at once. */
  scheduler: Scheduler;
  /** Stops accepting connections, lets in-flight requests finish, closes the database. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Overrides application.port (`--port`); 0 picks a free port. */
  port?: number;
  /** Replaces the configured logger (tests capture lines). */
  log?: Logger;
  /** `web` runs no background jobs (scans, thumbnails of scans, schedules, prune); `worker` serves no HTTP. */
  role?: ServerRole;
  /** Shares the port with other processes (SO_REUSEPORT): `--workers`. */
  reusePort?: boolean;
  /**
   * The processes of one `serve` (its supervisor and web processes) share this id: they relay
   * events to each other over IPC, so the database relay skips messages from its own group.
   * Unset: a group of one.
   */
  processGroup?: string;
}

export function loggerFor(loaded: LoadedConfig): Logger {
  const logging = loaded.config.logging;
  return createLogger({ level: logging.level, format: logging.format, file: logging.file || undefined });
}

/** SQLite's answers for a file that is not (or no longer) a whole database. */
const DAMAGED_SQLITE_CODES = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);

/**
 * Opens the configured database and applies pending migrations (also `longbox migrate` and
 * `user create`). An installation that had its first admin refuses a catalogue without users
 * (../operations/installation.ts) unless database.start_fresh asks for a new one.
 */
export async function openMigratedDataLayer(loaded: LoadedConfig, log: Logger) {
  const paths = dataPaths(loaded.config);
  const sqlite = loaded.config.database.type === "sqlite";
  const which = sqlite ? `SQLite database ${paths.sqliteFile}` : "PostgreSQL database";
  const installation = new InstallationRecord(paths, loaded.config);
  const guarded = installation.read() !== undefined && !loaded.config.database.start_fresh;
  // Before opening, which would create the missing file.
  if (guarded && installation.sqliteFileEmpty()) throw installation.damaged("missing or empty");
  let data;
  try {
    data = openDataLayer(loaded.config, paths.sqliteFile);
  } catch (error) {
    throw openingFailed(which, error);
  }
  try {
    if (guarded && !(await data.database.hasCatalogue())) throw installation.damaged("empty (no Longbox tables)");
    await data.database.migrate();
    await data.database.checkWritable();
    const users = await data.repositories.users.count();
    if (guarded && users === 0) throw installation.damaged("without any user");
    if (users > 0) recordFirstAdmin(installation, log);
    else if (installation.read()) {
      installation.forget();
      log.warn("starting fresh as asked (database.start_fresh): the first-admin setup is open again", { database: which });
    }
  } catch (error) {
    await data.database.close().catch(() => undefined);
    if (error instanceof DamagedInstallationError) throw error;
    throw openingFailed(which, error, "cannot be migrated or written");
  }
  log.info("database ready", { type: data.database.dialect });
  return data;
}

function openingFailed(which: string, error: unknown, otherwise = "cannot be opened (is its folder writable?)"): Error {
  const message = (error as Error).message;
  if (DAMAGED_SQLITE_CODES.has((error as { code?: string }).code ?? "")) {
    return new Error(`the database file is damaged: the ${which} is not a whole SQLite database (restore it from a backup): ${message}`, { cause: error });
  }
  return new Error(`the ${which} ${otherwise}: ${message}`, { cause: error });
}

/**
 * Refuses (ConfigError: exit 2) the settings the server cannot start with, whatever the
 * database or the bucket answer: values the schema of one key cannot judge, secrets too weak
 * (configured, or kept in the data folder by an earlier start), a database URL that names no
 * server, files.s3 settings that cannot work. `serve` (startServer) and `config check` run this
 * one function, so they refuse the same settings with the same message. The other commands
 * check only what they use (`migrate` and `user create`: the database), so settings of the
 * server alone never stop them. What needs an answer from outside waits for the start.
 */
export function assertServable(config: Config): void {
  rejectUnusableSettings(config);
  rejectWeakSecrets(config, dataPaths(config));
  rejectUnusableDatabase(config);
  if (config.files.storage === "s3") rejectUnusableBucket(config.files.s3);
}

export async function startServer(loaded: LoadedConfig, options: StartOptions = {}): Promise<RunningServer> {
  const { config } = loaded;
  assertServable(config);
  const log = options.log ?? loggerFor(loaded);
  for (const notice of loaded.notices) log.info(notice);
  const paths = dataPaths(config);
  mkdirSync(paths.dataDir, { recursive: true });
  const { secret, generated } = resolveJwtSecret(config, paths);
  if (generated) log.info("generated a new JWT signing secret", { file: paths.jwtSecretFile });
  const encryption = resolveEncryptionKey(config, paths);
  if (encryption.generated) {
    log.info("generated a new key for the secrets stored in the database (set encryption_key to choose it)", { file: paths.encryptionKeyFile });
  }

  const data = await openMigratedDataLayer(loaded, log);
  const role = options.role ?? "all";
  const runsJobs = role !== "web";
  let services: Services;
  let app: ReturnType<typeof createHttpApp>;
  let url = "";
  let port = 0;
  try {
    services = await createServices({ config, paths, jwtSecret: secret, encryptionKey: encryption.secret, log, ...data });
    const notifications = data.database.notifications;
    if (notifications) {
      // Scan progress, reading changes and the thumbnail queue's count reach event streams held
      // by the other instances, job outcomes the requests waiting for them, and revocations
      // and counted failed sign-ins their request caches (src/auth/credential-revocation.ts).
      await relayEventsThroughDatabase(services, notifications, options.processGroup ?? crypto.randomUUID(), (error) =>
        log.warn("an event could not be sent to the other instances", { error }),
      ).catch((error) => {
        throw new Error(`events cannot be relayed through the database: ${(error as Error).message}`, { cause: error });
      });
    }
    app = createHttpApp(services);
    if (role !== "worker") {
      app.listen({
        hostname: config.application.host,
        port: options.port ?? config.application.port,
        reusePort: options.reusePort ?? false,
        // Elysia asks Bun for its development mode unless NODE_ENV is "production", which nobody
        // sets for the binary: Bun's development error pages and hot reloading have no place here.
        development: false,
      });
      if (!app.server) throw new Error("the HTTP server did not start");
      port = app.server.port ?? 0;
      url = localUrl(config.application.host, port);
    }
  } catch (error) {
    // Nothing but the database has started yet (the background work starts below), and its
    // connections must not keep alive a process that neither serves nor exits: the pool,
    // PostgreSQL's LISTEN, and after a refused LISTEN (too many connections...) the listener,
    // which would try again forever.
    await data.database.close().catch(() => undefined);
    throw error;
  }
  const server = app.server;
  const scheduler = createScheduler(services);

  let stopping: Promise<void> | undefined;
  const drainMs = config.application.shutdown_timeout_seconds * 1000;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down");
      await scheduler.stop();
      // Event streams never finish on their own: end them so in-flight requests can drain.
      services.scanEvents.close();
      if (server) {
        // In-flight requests (a slow download) get shutdown_timeout_seconds, then are cut: the
        // service manager would kill the process soon after anyway, without a clean stop.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadline = new Promise<"deadline">((resolve) => (timer = setTimeout(() => resolve("deadline"), drainMs)));
        const drained = await Promise.race([app.stop(false).then(() => "drained" as const), deadline]);
        clearTimeout(timer);
        if (drained === "deadline") {
          log.warn("shutdown: requests still running after the drain time; closing them", { seconds: drainMs / 1000 });
          server.stop(true);
        }
      }
      await stopBackgroundWork(services);
      await data.database.close();
      log.info("stopped");
    })());

  try {
    if (server) log.info("longbox listening", { url, addresses: listenAddresses(config.application.host, port).join(" "), config: loaded.path, role });
    else log.info("longbox worker running", { config: loaded.path });
    if (runsJobs) {
      scheduler.start();
      await startBackgroundWork(services);
    }
  } catch (error) {
    // Never leave a half-started process listening: stop what started, then fail the start.
    await stop().catch(() => undefined);
    throw error;
  }
  return { url, port, services, scheduler, stop };
}
