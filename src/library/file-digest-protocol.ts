/** Messages between file-digests.ts (server thread) and file-digest-worker.ts. */
import type { SerializedError } from "../formats/thread-errors.ts";

/** `only: "partialMd5"`: the KOReader document id alone (no SHA-256, which reads the whole file). */
export type DigestRequest = { kind: "digest"; id: number; path: string; only?: "partialMd5" } | { kind: "cancel"; id: number };

export type DigestReply =
  | { id: number; ok: true; sha256: string | null; partialMd5: string }
  | { id: number; ok: false; error: SerializedError };
