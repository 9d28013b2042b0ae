/**
 * A worker thread for one of the server's pools (file digests, PDF rendering): the start and
 * the end of its life, which every pool handles alike; what it is asked and how its answers are
 * matched stays with each pool.
 */

/** The global Worker type is the DOM one (tsconfig loads lib DOM), without Bun's ref/unref. */
export type BunWorker = Worker & Pick<Bun.Worker, "ref" | "unref">;

/**
 * Starts the worker at `url` unref'd: an idle worker never keeps the process alive (`longbox
 * analyze` ends, a server stopped by SIGTERM exits); the pool refs it while it has work, so that
 * the process does not end while it waits for an answer. Its replies go to `onReply`; `onEnd`
 * hears why it ended: an uncaught error ends a Bun worker, and "close" also covers a worker that
 * exits otherwise (the pool may hear of one end twice, and of an end it caused by terminating it).
 */
export function startPoolWorker<Reply>(url: URL, onReply: (reply: Reply) => void, onEnd: (cause: string) => void): BunWorker {
  const worker = new Worker(url) as BunWorker;
  worker.unref();
  worker.addEventListener("message", (event: MessageEvent<Reply>) => onReply(event.data));
  worker.addEventListener("error", (event) => onEnd(event.message));
  worker.addEventListener("close", () => onEnd("it exited"));
  return worker;
}
