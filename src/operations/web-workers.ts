/**
 * `longbox serve --workers N`: one machine's cores serving one port. The process the user
 * started serves HTTP and runs every background job; it starts N-1 more processes with role
 * `web` on the same port (SO_REUSEPORT: the kernel spreads new connections over them) and
 * relays scan, reading, job, thumbnail-count and credential events between all of them over IPC (also on
 * PostgreSQL, whose relay then serves only the other instances: see ../events/process-relay.ts), so an event
 * stream connected to any process sees every scan, even while the database is away. A web process that dies is replaced; web processes stop
 * with the supervisor, and stop by themselves if it is killed outright.
 */
import { relayEvents, type EventChannels, type RelayMessage } from "../events/process-relay";
import type { Logger } from "../logging/logger";

/** Set in a supervised web process's environment (its number, for the logs). */
export const SUPERVISED_ENV = "LONGBOX_WEB_WORKER";
/** The supervisor's process group (StartOptions.processGroup), handed to its web processes. */
export const PROCESS_GROUP_ENV = "LONGBOX_PROCESS_GROUP";
/** The supervisor's pid, handed to its web processes: the parent they must keep. */
const SUPERVISOR_PID_ENV = "LONGBOX_SUPERVISOR_PID";
/** How often a web process looks for its supervisor. */
const SUPERVISOR_CHECK_MS = 250;

const RESPAWN_DELAY_MS = 1000;

export interface WebWorkers {
  stop(): Promise<void>;
}

export function startWebWorkers<T>(
  count: number,
  /** `channels`: the events relayed over IPC. */
  options: { port: number; configPath: string; channels: EventChannels<T>; processGroup: string; log: Logger },
): WebWorkers {
  const children = new Set<Bun.Subprocess>();
  let stopping = false;
  const broadcast = (message: RelayMessage<T>, except?: Bun.Subprocess) => {
    for (const child of children) {
      if (child === except) continue;
      try {
        child.send(message);
      } catch {
        // Exiting: it is replaced, and its streams went with it.
      }
    }
  };
  const deliver = relayEvents(options.channels, (message) => broadcast(message));
  const spawn = (index: number) => {
    const child = Bun.spawn(
      [...ownCommand(), "serve", "--role", "web", "--workers", "1", "--port", String(options.port), "--config", options.configPath],
      {
        env: { ...process.env, [SUPERVISED_ENV]: String(index), [PROCESS_GROUP_ENV]: options.processGroup, [SUPERVISOR_PID_ENV]: String(process.pid) },
        stdio: ["ignore", "inherit", "inherit"],
        ipc(message: RelayMessage<T>, from) {
          deliver(message);
          broadcast(message, from);
        },
      },
    );
    children.add(child);
    void child.exited.then((code) => {
      children.delete(child);
      if (stopping) return;
      options.log.error("a web process stopped; starting another", { worker: index, code });
      setTimeout(() => stopping || spawn(index), RESPAWN_DELAY_MS);
    });
  };
  for (let index = 1; index < count; index++) spawn(index);
  return {
    async stop() {
      stopping = true;
      const running = [...children];
      for (const child of running) child.kill("SIGTERM");
      await Promise.all(running.map((child) => child.exited));
    },
  };
}

/**
 * In a supervised web process: events to and from the supervisor, and an end when it is gone.
 * Returns the function that leaves (the IPC channel would otherwise keep the process alive).
 */
export function joinSupervisor<T>(channels: EventChannels<T>, stop: () => void): () => void {
  const deliver = relayEvents(channels, (message) => process.send?.(message));
  const receive = (message: unknown) => deliver(message as RelayMessage<T>);
  process.on("message", receive);
  // A supervisor killed outright (SIGKILL) cannot stop us: a web process left alone would keep
  // serving the port without anyone running the jobs. It may have died while this process was
  // still starting, so the parent to keep is the pid it handed over, not the parent seen now
  // (by then the process is another's child); its IPC channel closing says the same sooner.
  const supervisor = Number(process.env[SUPERVISOR_PID_ENV]) || process.ppid;
  const orphaned = () => process.ppid !== supervisor || process.connected === false;
  process.once("disconnect", stop);
  const watch = setInterval(() => orphaned() && stop(), SUPERVISOR_CHECK_MS);
  if (orphaned()) stop();
  return () => {
    clearInterval(watch);
    process.off("disconnect", stop);
    process.off("message", receive);
    process.disconnect?.();
  };
}

/** The command that runs this program: the compiled binary alone, or bun and the entry script. */
function ownCommand(): string[] {
  const compiled = Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN");
  return compiled ? [process.execPath] : [process.execPath, Bun.main];
}
