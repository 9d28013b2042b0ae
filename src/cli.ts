/**
 * The command line: `longbox [serve] [--config PATH] [--port N]`, `longbox config check`,
 * `longbox user create ...`, `longbox migrate`, `longbox analyze FILE...`, `longbox backup [--to DIR]`,
 * `longbox restore FILE [--force]`, `--version`, `--help`.
 * Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad configuration (reason on stderr).
 */
import { availableParallelism } from "node:os";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, rejectUnusableDatabase, type LoadedConfig } from "./config/load";
import { maskSecrets } from "./config/secrets";
import { passwordHasherFor } from "./auth/passwords";
import { UserService } from "./auth/users";
import { usernameReport } from "./auth/usernames";
import { dataPaths } from "./config/paths";
import { openDataLayer, type DataLayer } from "./db";
import { InstallationRecord, recordFirstAdmin } from "./operations/installation";
import { nameThisProcess } from "./operations/process-name";
import { joinSupervisor, PROCESS_GROUP_ENV, startWebWorkers, SUPERVISED_ENV, type WebWorkers } from "./operations/web-workers";
import { assertServable, loggerFor, openMigratedDataLayer, startServer, type ServerRole } from "./server";
import { DomainError } from "./errors";
import { analyzeFiles } from "./formats/analyze-command";
import { VERSION, versionReport } from "./version";
import { databaseDumps } from "./db/dumps";
import { BackupService } from "./operations/backups";
import { restoreBackup } from "./operations/restore";
import { openFileStores, rejectUnusableBucket } from "./storage/from-config";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

class UsageError extends Error {}

const HELP = `longbox ${VERSION}: a self-hosted server for comics, manga and ebooks

Usage:
  longbox [serve] [--config PATH] [--port N] [--workers N] [--role all|web|worker] [--start-fresh]
                                               start the server (default command); --workers N
                                               serves the port with N processes (default
                                               application.workers, 0 = one per core), one of
                                               which runs the background jobs; --role web runs
                                               no jobs, --role worker only jobs (no HTTP);
                                               --start-fresh: an installation whose database
                                               lost its users starts with an empty one instead
                                               of refusing (database.start_fresh)
  longbox config check [--config PATH]         validate and print the effective configuration (secrets masked)
  longbox user create --username U [--email E] --password P [--admin] [--config PATH]
                                               create a user (the first one may be an admin)
  longbox migrate [--config PATH]              apply database migrations and exit
  longbox analyze FILE... [--config PATH]      read books as a scan would; one JSON line per file
                                               (exit 1 if a file does not exist)
  longbox backup [--to DIR] [--config PATH]    write a backup (database and uploaded covers) into DIR
                                               (default backup.dir), also while the server runs
  longbox restore FILE [--force] [--config PATH]
                                               check a backup and replace the database and the
                                               uploaded covers with it; refused while a server
                                               uses the database unless --force
  longbox --version | --help

The configuration file is --config, else $SERVICE_CONFIG, else ./config/config.yaml.
Exit codes: 0 ok, 1 runtime failure, 2 bad usage or configuration.
`;

const OPTIONS = {
  config: { type: "string" },
  port: { type: "string" },
  workers: { type: "string" },
  role: { type: "string" },
  "start-fresh": { type: "boolean" },
  username: { type: "string" },
  email: { type: "string" },
  password: { type: "string" },
  admin: { type: "boolean" },
  to: { type: "string" },
  force: { type: "boolean" },
  version: { type: "boolean", short: "v" },
  help: { type: "boolean", short: "h" },
} as const;

export async function runCli(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`longbox: ${error.message}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof DomainError) {
      process.stderr.write(`longbox: ${error.message}\n`);
      return error.kind === "BadRequest" || error.kind === "UnprocessableEntity" ? EXIT_USAGE : EXIT_FAILURE;
    }
    process.stderr.write(`longbox: ${(error as Error).message ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
}

async function dispatch(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help) return print(HELP);
  if (values.version) return print(versionReport());
  if (positionals[0] === "analyze") {
    if (positionals.length === 1) throw new UsageError(`analyze needs at least one FILE\n\n${HELP}`);
    return analyzeFiles(positionals.slice(1), values.config);
  }
  if (positionals[0] === "restore") {
    if (positionals.length !== 2) throw new UsageError(`restore needs one FILE\n\n${HELP}`);
    return restore(positionals[1]!, values);
  }
  const command = positionals.join(" ") || "serve";

  switch (command) {
    case "serve":
      return serve(values);
    case "config check": {
      const loaded = loadConfig({ path: values.config });
      // What `serve` would refuse for a configuration reason, with the same message.
      assertServable(loaded.config);
      print(`# ${loaded.path}\n${JSON.stringify(maskSecrets(loaded.config), null, 2)}\n`);
      await reportUsernames(loaded);
      return EXIT_OK;
    }
    case "migrate": {
      const { data } = await openConfiguredDatabase(values.config);
      await data.database.close();
      return EXIT_OK;
    }
    case "user create":
      return createUser(values);
    case "backup":
      return backup(values);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${HELP}`);
  }
}

/**
 * `config check` also reports the accounts whose usernames new accounts could not have: names
 * that look alike (Unicode TS #39) or hold characters now refused, made before the rule
 * (src/auth/usernames.ts). On stderr, so that the printed configuration stays parseable. Only
 * when the database can be read: one that does not exist yet, is not migrated or cannot be
 * reached says nothing (the configuration itself passed; `serve` and `migrate` report those).
 */
async function reportUsernames(loaded: LoadedConfig): Promise<void> {
  const paths = dataPaths(loaded.config);
  if (loaded.config.database.type === "sqlite" && !existsSync(paths.sqliteFile)) return;
  let data: DataLayer | undefined;
  try {
    data = openDataLayer(loaded.config, paths.sqliteFile);
    const accounts = await withTimeout(data.repositories.users.allUsernames(), USERNAME_CHECK_TIMEOUT_MS);
    for (const line of usernameReport(accounts)) process.stderr.write(`longbox: warning: ${line}\n`);
  } catch {
    // Nothing to report on: see above.
  } finally {
    await data?.database.close().catch(() => undefined);
  }
}

const USERNAME_CHECK_TIMEOUT_MS = 10_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("timed out")), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function print(text: string): number {
  process.stdout.write(text);
  return EXIT_OK;
}

const ROLES: readonly ServerRole[] = ["all", "web", "worker"];

async function serve(values: { config?: string; port?: string; workers?: string; role?: string; "start-fresh"?: boolean }): Promise<number> {
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be a port number, got "${values.port}"`);
  }
  const requestedWorkers = values.workers === undefined ? undefined : Number(values.workers);
  if (requestedWorkers !== undefined && (!Number.isInteger(requestedWorkers) || requestedWorkers < 1 || requestedWorkers > 256)) {
    throw new UsageError(`--workers must be a number from 1 to 256, got "${values.workers}"`);
  }
  const role = (values.role ?? "all") as ServerRole;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}, got "${values.role}"`);
  nameThisProcess(role);
  const loaded = loadConfig({ path: values.config, createIfMissing: true });
  if (values["start-fresh"]) loaded.config.database.start_fresh = true;
  const supervisedAs = process.env[SUPERVISED_ENV];
  // Only a supervised web process belongs to its supervisor's group: the variable left in the
  // environment of a process started by hand would silently drop another instance's events.
  const processGroup = (supervisedAs !== undefined && process.env[PROCESS_GROUP_ENV]) || crypto.randomUUID();
  const workers = requestedWorkers ?? (loaded.config.application.workers || availableParallelism());
  // Only the process the user started supervises; a worker-only process serves no port.
  const supervises = supervisedAs === undefined && role !== "worker" && workers > 1;
  // Listen for the signals before starting, so one that arrives during start-up is not lost.
  let signal: () => void = () => undefined;
  const signalled = new Promise<void>((resolve) => (signal = resolve));
  process.once("SIGTERM", signal);
  process.once("SIGINT", signal);
  let server;
  try {
    const log = supervisedAs === undefined ? undefined : loggerFor(loaded).child({ worker: Number(supervisedAs) });
    server = await startServer(loaded, { port, role, log, reusePort: supervises || supervisedAs !== undefined, processGroup });
  } catch (error) {
    // A failed start exits (non-zero, with the reason) instead of lingering with signals caught.
    process.off("SIGTERM", signal);
    process.off("SIGINT", signal);
    throw error;
  }
  let webWorkers: WebWorkers | undefined;
  if (supervises) {
    webWorkers = startWebWorkers(workers, { port: server.port, configPath: resolve(loaded.path), channels: server.services, processGroup, log: server.services.log });
  }
  const leaveSupervisor = supervisedAs === undefined ? undefined : joinSupervisor(server.services, signal);
  await signalled;
  // A second signal while stopping ends the process at once.
  const force = () => process.exit(EXIT_FAILURE);
  process.once("SIGTERM", force);
  process.once("SIGINT", force);
  await webWorkers?.stop();
  await server.stop();
  leaveSupervisor?.();
  return EXIT_OK;
}

/**
 * The migrated database of the configuration, for `migrate` and `user create`: of the
 * configuration they check only the database settings (the server's own, such as the secrets
 * or the bucket, are for assertServable), so a setting that only `serve` uses never stops them.
 */
async function openConfiguredDatabase(configPath: string | undefined) {
  const loaded = loadConfig({ path: configPath, createIfMissing: true });
  rejectUnusableDatabase(loaded.config);
  return { loaded, data: await openMigratedDataLayer(loaded, loggerFor(loaded)) };
}

async function createUser(values: { config?: string; username?: string; email?: string; password?: string; admin?: boolean }) {
  const { username, email, password } = values;
  if (!username || !password) throw new UsageError("user create needs --username and --password");
  const { loaded, data } = await openConfiguredDatabase(values.config);
  try {
    const users = new UserService(data.repositories, passwordHasherFor(loaded.config));
    const role = values.admin ? "admin" : "user";
    const user = await users.createAccount({ username, email: email ?? null, password, role, emailVerified: true });
    recordFirstAdmin(new InstallationRecord(dataPaths(loaded.config), loaded.config), loggerFor(loaded));
    process.stdout.write(`created ${user.role} ${user.username} (${user.id})\n`);
    return EXIT_OK;
  } finally {
    await data.database.close();
  }
}

/**
 * What `backup` and `restore` work on: the configured database (checked like `migrate` does,
 * never migrated) and the covers store.
 */
async function backupTarget(configPath: string | undefined) {
  // Never a default configuration: a mistyped --config would back up, or restore into, an empty new database.
  const loaded = loadConfig({ path: configPath });
  rejectUnusableDatabase(loaded.config);
  if (loaded.config.files.storage === "s3") rejectUnusableBucket(loaded.config.files.s3);
  const paths = dataPaths(loaded.config);
  const stores = await openFileStores(loaded.config, paths);
  return { loaded, paths, dumps: databaseDumps(loaded.config, paths.sqliteFile), covers: stores.covers };
}

async function backup(values: { config?: string; to?: string }): Promise<number> {
  const { loaded, paths, dumps, covers } = await backupTarget(values.config);
  const backups = new BackupService({ dir: paths.backupDir, keep: loaded.config.backup.keep }, dumps, covers, loggerFor(loaded));
  const made = await backups.create(values.to === undefined ? undefined : resolve(values.to));
  return print(`${made.path} (${made.bytes} bytes)\n`);
}

async function restore(file: string, values: { config?: string; force?: boolean }): Promise<number> {
  const { loaded, paths, dumps, covers } = await backupTarget(values.config);
  const stagingParent = loaded.config.database.type === "sqlite" ? dirname(paths.sqliteFile) : paths.dataDir;
  const { manifest, forcedPast } = await restoreBackup(resolve(file), { dumps, covers, stagingParent }, { force: values.force ?? false });
  if (forcedPast) process.stderr.write(`longbox: restored although ${forcedPast}: restart that server now\n`);
  return print(
    `restored the backup of ${manifest.createdAt} (Longbox ${manifest.longboxVersion}, schema version ${manifest.database.schemaVersion}): ` +
      `the ${manifest.database.kind} database and ${manifest.covers.count} uploaded covers; thumbnails are made again as they are shown\n`,
  );
}
