/**
 * Entry point of the worker thread that copies a SQLite database with VACUUM INTO (started by
 * ./sqlite-dump.ts): bun:sqlite runs a statement to its end synchronously, and the copy takes
 * about a second per 130 MB, during which a server thread would answer no request (the
 * scheduled backup runs inside the server). The compiled binary bundles this file as an extra
 * entry point (see build.ts).
 */
import { Database } from "bun:sqlite";

declare const self: Worker;

export interface CopyRequest {
  source: string;
  target: string;
}

export type CopyReply = { ok: true } | { ok: false; message: string; code?: string };

self.onmessage = (event: MessageEvent<CopyRequest>) => {
  const { source, target } = event.data;
  let reply: CopyReply;
  try {
    const client = new Database(source, { readonly: true });
    try {
      // A writer holding the file for a moment (a checkpoint) makes the copy wait, not fail.
      client.exec("PRAGMA busy_timeout = 10000");
      client.query("VACUUM INTO ?").run(target);
    } finally {
      client.close();
    }
    reply = { ok: true };
  } catch (error) {
    reply = { ok: false, message: (error as Error).message, code: (error as { code?: string }).code };
  }
  self.postMessage(reply);
};
