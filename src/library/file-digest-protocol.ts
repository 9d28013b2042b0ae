/** Messages between file-digests.ts (server thread) and file-digest-worker.ts. */
import type { SerializedError } from "../formats/thread-errors.ts";

export type DigestRequest = { kind: "digest"; id: number; path: string } | { kind: "cancel"; id: number };

export type DigestReply = { id: number; ok: true; sha256: string; partialMd5: string } | { id: number; ok: false; error: SerializedError };
