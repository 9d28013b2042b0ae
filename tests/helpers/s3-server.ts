/**
 * A real S3-compatible server for the object storage tests: s3rver (npm devDependency) in the
 * test process, on a free loopback port, keeping its objects in a temp folder. It speaks the
 * S3 REST API that Bun's S3 client talks (path-style, SigV4 headers). It checks the access key
 * id but does not verify SigV4 signatures, so a wrong secret is not refused by it: the tests
 * prove refused credentials with an unknown access key id.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

/** s3rver's built-in account. */
export const S3_ACCESS_KEY_ID = "S3RVER";
export const S3_SECRET_ACCESS_KEY = "S3RVER";

export interface TestS3Server {
  endpoint: string;
  bucket: string;
  /** A client of the bucket, to look at what Longbox stored. */
  client: Bun.S3Client;
  /** The `files` section of a Longbox configuration storing into this bucket under `prefix`. */
  files(prefix: string): Record<string, unknown>;
  /** Every key under `prefix`. */
  keys(prefix: string): Promise<string[]>;
  /**
   * The requests the server answered since it started or `requests.length = 0`, as
   * "<method> <path>[?query]" with the path in path style (`/<bucket>/<key>`).
   */
  requests: string[];
  stop(): Promise<void>;
}

export async function startS3Server(bucket = "longbox"): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), "longbox-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const requests: string[] = [];
  // s3rver is a Koa application: a middleware put first (before run() composes them) sees every request.
  (server as unknown as { middleware: ((context: { method: string; url: string }, next: () => Promise<void>) => Promise<void>)[] }).middleware.unshift(
    (context, next) => {
      requests.push(`${context.method} ${decodeURIComponent(context.url)}`);
      return next();
    },
  );
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  const client = new Bun.S3Client({ bucket, endpoint, accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY });
  return {
    endpoint,
    bucket,
    client,
    requests,
    files: (prefix) => ({
      storage: "s3",
      s3: { bucket, endpoint, access_key_id: S3_ACCESS_KEY_ID, secret_access_key: S3_SECRET_ACCESS_KEY, prefix },
    }),
    async keys(prefix) {
      const keys: string[] = [];
      let continuationToken: string | undefined;
      do {
        const page = await client.list({ prefix, continuationToken });
        keys.push(...(page.contents ?? []).map((object) => object.key));
        continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
      } while (continuationToken);
      return keys.sort();
    },
    /** Stops the server (a test may stop it early: a second call does nothing). */
    stop: () => (stopped ??= server.close().then(() => rmSync(directory, { recursive: true, force: true }))),
  };
}
