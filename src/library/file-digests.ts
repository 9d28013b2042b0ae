/**
 * A book file's digests, the SHA-256 that identifies its content and KOReader's partial MD5,
 * computed in worker threads (file-digest-worker.ts). Hashing is most of a fresh scan's CPU
 * time; on the server thread it queued behind every book's analysis and database writes, and
 * one thread hashed at a time. With the workers, files hash on the other cores while the server
 * thread analyses and stores the books already hashed.
 *
 * Requests go round-robin to a pool of workers (POOL_SIZE), started on the first request. A
 * worker with requests is ref'd, an idle one unref'd (src/formats/pool-worker.ts). A worker that
 * dies fails its requests (`unexpected`) and is replaced.
 */
import { availableParallelism } from "node:os";
import { failure } from "../formats/errors.ts";
import { type BunWorker, startPoolWorker } from "../formats/pool-worker.ts";
import { deserializeError } from "../formats/thread-errors.ts";
import type { DigestReply, DigestRequest } from "./file-digest-protocol.ts";

export interface FileDigests {
  sha256: string;
  partialMd5: string;
}

/** A worker's answer: the SHA-256 is null when only the document id was asked for. */
type Answer = { sha256: string | null; partialMd5: string };

interface Pending {
  resolve(answer: Answer): void;
  reject(error: unknown): void;
}

interface DigestWorker {
  thread: BunWorker;
  pending: Map<number, Pending>;
}

/**
 * One worker per core but one, at least one and at most 4: the server thread keeps a core for
 * requests and the books' analysis. Since the server thread catalogues a book in less time
 * than one worker hashes it, the worker sets a fresh scan's pace on 2 cores; a second one there
 * (sharing the server thread's core) was not clearly faster on a loaded machine (see
 * docs/benchmarks.md, Scanning).
 */
const POOL_SIZE = Math.min(4, Math.max(1, availableParallelism() - 1));

class FileDigestPool {
  private readonly workers: DigestWorker[] = [];
  private nextId = 0;
  private turn = 0;

  constructor(
    private readonly workerUrl: URL,
    private readonly size: number,
  ) {}

  /** The file's digests; rejects at once, and stops the hashing, when `signal` fires. */
  digest(path: string, signal: AbortSignal, only?: "partialMd5"): Promise<Answer> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const worker = this.pickWorker();
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      const settled = () => {
        signal.removeEventListener("abort", abort);
        worker.pending.delete(id);
        if (worker.pending.size === 0) worker.thread.unref();
      };
      const abort = () => {
        settled();
        this.post(worker, { kind: "cancel", id });
        reject(signal.reason);
      };
      signal.addEventListener("abort", abort, { once: true });
      worker.pending.set(id, {
        resolve: (answer) => {
          settled();
          resolve(answer);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
      });
      worker.thread.ref();
      this.post(worker, { kind: "digest", id, path, only });
    });
  }

  private post(worker: DigestWorker, request: DigestRequest): void {
    worker.thread.postMessage(request);
  }

  private pickWorker(): DigestWorker {
    if (this.workers.length < this.size) return this.startWorker();
    this.turn = (this.turn + 1) % this.workers.length;
    return this.workers[this.turn]!;
  }

  private startWorker(): DigestWorker {
    const pending = new Map<number, Pending>();
    const onReply = (reply: DigestReply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return; // cancelled meanwhile
      if (reply.ok) waiting.resolve({ sha256: reply.sha256, partialMd5: reply.partialMd5 });
      else waiting.reject(deserializeError(reply.error));
    };
    const worker: DigestWorker = { thread: startPoolWorker(this.workerUrl, onReply, (cause) => this.crashed(worker, cause)), pending };
    this.workers.push(worker);
    return worker;
  }

  private crashed(worker: DigestWorker, cause: string): void {
    const at = this.workers.indexOf(worker);
    if (at < 0) return;
    this.workers.splice(at, 1);
    worker.thread.terminate();
    for (const pending of [...worker.pending.values()]) {
      pending.reject(failure("other", "unexpected", `The file hashing worker stopped unexpectedly (${cause})`));
    }
  }
}

/**
 * The server's pool. The worker is an extra entry point of the compiled binary, stored next to
 * the main one (build.ts names entry points by file name only), so that this URL, relative to
 * the module, finds it both from source and inside the binary.
 */
const pool = new FileDigestPool(new URL("./file-digest-worker.ts", import.meta.url), POOL_SIZE);

/** The SHA-256 and the KOReader partial MD5 of the file at `path`, hashed off the server thread. */
export async function fileDigests(path: string, signal: AbortSignal): Promise<FileDigests> {
  const { sha256, partialMd5 } = await pool.digest(path, signal);
  return { sha256: sha256!, partialMd5 };
}

/** Only the KOReader document id (partial MD5) of the file at `path`, read off the server thread. */
export async function documentIdOf(path: string, signal: AbortSignal): Promise<string> {
  return (await pool.digest(path, signal, "partialMd5")).partialMd5;
}
