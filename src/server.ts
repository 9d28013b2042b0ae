/**
 * Starting and stopping the service: configuration -> logger -> data layer (migrated) ->
 * services -> HTTP. Used by `longbox serve` and by the tests, which start real servers.
 */
import { mkdirSync } from "node:fs";
import type { LoadedConfig } from "./config/load";
import { dataPaths } from "./config/paths";
import { resolveJwtSecret } from "./config/secrets";
import { openDataLayer } from "./db";
import { createHttpApp } from "./http/app";
import { createScheduler, type Scheduler } from "./jobs";
import { createLogger, type Logger } from "./logging/logger";
import { createServices, startBackgroundWork, stopBackgroundWork, type Services } from "./services";

export interface RunningServer {
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
}

export function loggerFor(loaded: LoadedConfig): Logger {
  const logging = loaded.config.logging;
  return createLogger({ level: logging.level, format: logging.format, file: logging.file || undefined });
}

/** Opens the configured database and applies pending migrations (also `longbox migrate`). */
export async function openMigratedDataLayer(loaded: LoadedConfig, log: Logger) {
  const paths = dataPaths(loaded.config);
  const data = openDataLayer(loaded.config, paths.sqliteFile);
  try {
    await data.database.migrate();
  } catch (error) {
    await data.database.close();
    throw error;
  }
  log.info("database ready", { type: data.database.dialect });
  return data;
}

export async function startServer(loaded: LoadedConfig, options: StartOptions = {}): Promise<RunningServer> {
  const { config } = loaded;
  const log = options.log ?? loggerFor(loaded);
  for (const notice of loaded.notices) log.info(notice);
  const paths = dataPaths(config);
  mkdirSync(paths.dataDir, { recursive: true });
  const { secret, generated } = resolveJwtSecret(config, paths.jwtSecretFile);
  if (generated) log.info("generated a new JWT signing secret", { file: paths.jwtSecretFile });

  const data = await openMigratedDataLayer(loaded, log);
  const services = await createServices({ config, paths, jwtSecret: secret, log, ...data });
  const app = createHttpApp(services);
  app.listen({ hostname: config.application.host, port: options.port ?? config.application.port });
  const server = app.server;
  if (!server) throw new Error("the HTTP server did not start");
  const url = `http://${config.application.host === "0.0.0.0" ? "127.0.0.1" : config.application.host}:${server.port}`;
  log.info("longbox listening", { url, config: loaded.path });
  const scheduler = createScheduler(services);
  scheduler.start();
  await startBackgroundWork(services);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down");
      await scheduler.stop();
      // Event streams never finish on their own: end them so in-flight requests can drain.
      services.scanEvents.close();
      await app.stop(false);
      await stopBackgroundWork(services);
      await data.database.close();
      log.info("stopped");
    })());
  return { url, port: server.port ?? 0, services, scheduler, stop };
}
