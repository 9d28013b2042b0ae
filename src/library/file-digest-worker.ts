/**
 * Entry point of a file digest worker thread (started by file-digests.ts): reads a file and
 * answers its SHA-256 and its KOReader partial MD5 (or only the latter), so that hashing, the
 * largest piece of CPU work in a fresh scan, runs beside the server thread instead of on it.
 * Requests are answered one after another from one open file each, read synchronously: this
 * thread has nothing else to do, and a round trip through the thread pool per chunk left it
 * idle part of the time. Between chunks of a large file it lets messages in, so that a cancelled
 * request stops there. The compiled binary bundles this file as an extra entry point (see
 * build.ts).
 */
import { closeSync, openSync } from "node:fs";
import { serializeError } from "../formats/thread-errors.ts";
import type { DigestReply, DigestRequest } from "./file-digest-protocol.ts";
import { sha256OfFile } from "./file-hash.ts";
import { partialMd5OfFile } from "./koreader-document-id.ts";

declare const self: Worker;

type Job = Extract<DigestRequest, { kind: "digest" }>;

const queue: Job[] = [];
/** The request being answered, and whether it was cancelled meanwhile. */
let current: { id: number; cancelled: boolean } | undefined;

/** A macrotask turn, in which waiting messages (cancellations) are delivered. */
const letMessagesIn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function answer(job: Job): Promise<DigestReply> {
  const stopIfCancelled = async () => {
    await letMessagesIn();
    if (current?.cancelled) throw new Error("cancelled");
  };
  try {
    const fd = openSync(job.path, "r");
    try {
      const sha256 = job.only === "partialMd5" ? null : await sha256OfFile(fd, stopIfCancelled);
      return { id: job.id, ok: true, sha256, partialMd5: partialMd5OfFile(fd) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { id: job.id, ok: false, error: serializeError(error) };
  }
}

async function work(): Promise<void> {
  for (let job = queue.shift(); job; job = queue.shift()) {
    current = { id: job.id, cancelled: false };
    const reply = await answer(job);
    current = undefined;
    self.postMessage(reply); // a cancelled request's answer is ignored by its caller
  }
}

self.addEventListener("message", (event: MessageEvent<DigestRequest>) => {
  const request = event.data;
  if (request.kind === "digest") {
    queue.push(request);
    if (!current) void work();
    return;
  }
  // A waiting request is dropped; the one being answered stops at its next pause.
  const waiting = queue.findIndex((job) => job.id === request.id);
  if (waiting >= 0) queue.splice(waiting, 1);
  else if (current?.id === request.id) current.cancelled = true;
});
