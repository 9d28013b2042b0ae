/**
 * Entry point of a file digest worker thread (started by file-digests.ts): reads a file and
 * answers its SHA-256 and its KOReader partial MD5, so that hashing, the largest piece of
 * CPU work in a fresh scan, runs beside the server thread instead of on it. Several requests
 * may run at once (their reads interleave); a cancelled one stops at its next chunk. The
 * compiled binary bundles this file as an extra entry point (see build.ts).
 */
import { serializeError } from "../formats/thread-errors.ts";
import type { DigestReply, DigestRequest } from "./file-digest-protocol.ts";
import { sha256File } from "./file-hash.ts";
import { partialMd5File } from "./koreader-document-id.ts";

declare const self: Worker;

const running = new Map<number, AbortController>();

self.addEventListener("message", async (event: MessageEvent<DigestRequest>) => {
  const request = event.data;
  if (request.kind === "cancel") {
    running.get(request.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(request.id, controller);
  let reply: DigestReply;
  try {
    const [sha256, partialMd5] = await Promise.all([sha256File(request.path, controller.signal), partialMd5File(request.path)]);
    reply = { id: request.id, ok: true, sha256, partialMd5 };
  } catch (error) {
    reply = { id: request.id, ok: false, error: serializeError(error) };
  } finally {
    running.delete(request.id);
  }
  self.postMessage(reply);
});
