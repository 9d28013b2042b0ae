import { expect } from "bun:test";
/** Talking to `longbox serve` processes started by a test (scripts/server-process.ts). */

/** `credentials`: a Bearer token (an access token or an API key), or the headers to send. */
export type ProcessCall = (method: string, path: string, credentials?: string | Record<string, string>, body?: unknown) => Promise<{ status: number; body: any }>;

/**
 * A tiny JSON client for the server at `url`. `freshConnections`: every request on a connection
 * of its own, so that consecutive requests can reach different processes sharing the port.
 */
export function processClient(url: string, freshConnections = false): ProcessCall {
  return async (method, path, credentials, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(freshConnections ? { connection: "close" } : {}),
        ...(typeof credentials === "string" ? { authorization: `Bearer ${credentials}` } : credentials),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json().catch(() => undefined)) as any };
  };
}

/** The web interface's scan stream (the admin libraries page's), beside the API's default one. */
export const ADMIN_SCAN_STREAM = "/admin/scans/events";

/** Reads GET /api/v1/scans/stream (or the stream at `path`) into `transcript()` until `stop()`. */
export function scanStreamTranscript(url: string, token: string, path = "/api/v1/scans/stream") {
  let text = "";
  const controller = new AbortController();
  const done = (async () => {
    const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    } catch {
      // Stopped.
    }
  })();
  return {
    transcript: () => text,
    stop: async () => {
      controller.abort();
      await done.catch(() => undefined);
    },
  };
}

export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The processes holding TCP sockets of `port` in `state` (listening or established), by pid. */
export function socketOwners(port: number, state: "listening" | "established"): number[] {
  const result = Bun.spawnSync(["ss", "-tnpH", "state", state, `( sport = :${port} )`]);
  return [...result.stdout.toString().matchAll(/pid=(\d+)/g)].map((match) => Number(match[1]));
}

/**
 * `count` scan-event streams (at `path`) on the server at `url`, each on a connection of its own,
 * spread by the kernel over the processes sharing its port (`serve --workers 2`): resolves once
 * every stream is connected and both processes hold some (2 × 0.5^count that the kernel gave them
 * all to one; other connections open meanwhile count too).
 */
export async function streamsOnBothProcesses(url: string, token: string, count: number, path?: string) {
  const streams = Array.from({ length: count }, () => scanStreamTranscript(url, token, path));
  const transcripts = () => streams.map((stream) => stream.transcript());
  await waitFor(() => transcripts().every((text) => text.includes(": connected")), "every stream to connect");
  expect(new Set(socketOwners(Number(new URL(url).port), "established")).size).toBe(2);
  return { transcripts, stop: () => Promise.all(streams.map((stream) => stream.stop())) };
}

/**
 * Whether an admin scan stream's transcript (ADMIN_SCAN_STREAM) saw a scan complete with
 * thumbnails still to make, and then, as its latest `thumbnails` event, the line of thumbnails
 * still being made emptied: the count reached none.
 */
export function thumbnailsCountedToNone(transcript: string): boolean {
  const completed = transcript.indexOf('data-status="completed"');
  const latest = transcript.lastIndexOf("event: thumbnails\n");
  return (
    completed >= 0 &&
    /\d+ thumbnails still being made/.test(transcript.slice(completed)) &&
    latest > completed &&
    transcript.startsWith("event: thumbnails\ndata: \n\n", latest)
  );
}

/** A port nobody listens on now (a supervisor can be started on it with its output unread). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/**
 * SIGKILLs the supervisor of `serve --workers 2` on `port` once it spawned its web process
 * (`early`: at once, while that one still starts; else once both listen) and expects the
 * web process to end by itself, freeing the port, with nobody else signalling it (how soon is
 * for bench/, not a test: waitFor's limit only keeps a hang from lasting); kills what is left
 * either way.
 */
export async function killSupervisorOutright(supervisor: Bun.Subprocess, port: number, early: boolean): Promise<void> {
  let webPids: number[] = [];
  try {
    await waitFor(() => (webPids = childrenOf(supervisor.pid)).length > 0, "the web process to be spawned");
    if (!early) await waitFor(() => new Set(socketOwners(port, "listening")).size === 2, "two processes listening on the port");
    supervisor.kill("SIGKILL");
    await supervisor.exited;
    // Nothing here signals the web process before the wait is over: only its own watch on the
    // supervisor can end it. Still there when the wait gives up fails the test.
    await waitFor(() => socketOwners(port, "listening").length === 0 && !webPids.some(isAlive), "the orphaned web process to stop by itself");
  } finally {
    supervisor.kill("SIGKILL");
    for (const pid of webPids.filter(isAlive)) process.kill(pid, "SIGKILL");
  }
}

/** The children of `pid`. */
export function childrenOf(pid: number): number[] {
  return Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .split("\n")
    .filter(Boolean)
    .map(Number);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
