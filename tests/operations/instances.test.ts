/**
 * Two instances (two `longbox serve` processes on different ports) on one PostgreSQL database:
 * a scan requested through A runs once and its events reach a stream held by B (LISTEN/NOTIFY),
 * as do the counts of its thumbnails down to none on the admin page's streams (B, a web-only
 * process, makes none), and failed sign-ins counted through A hold on B.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ServerProcess } from "../../scripts/server-process";
import { PASSWORD } from "../helpers/auth";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { makeCbz, tempFolder } from "../helpers/library";
import { TEST_AUTH } from "../helpers/server";
import { expectRevocationEverywhere, expectThrottleEverywhere } from "../helpers/revocation";
import { ADMIN_SCAN_STREAM, processClient, scanStreamTranscript, thumbnailsCountedToNone, waitFor } from "../helpers/server-processes";

const BOOKS = 40;

describe.skipIf(!DATABASE_KINDS.includes("postgres"))("two instances on one PostgreSQL database", () => {
  let instances: Instances;
  let a: ServerProcess;
  let b: ServerProcess;
  let libraryRoot: string;

  beforeAll(async () => {
    instances = await instancesOnOneDatabase("postgres", { auth: { ...TEST_AUTH, login_max_failures: 3 } });
    libraryRoot = tempFolder();
    for (let index = 1; index <= BOOKS; index++) {
      await makeCbz(join(libraryRoot, `Series ${index % 4}`, `Issue ${index}.cbz`), { seed: index + 30_000, pages: 2 });
    }
    a = await instances.start();
    // B runs no background work: its streams hear the thumbnail counts only through the relay.
    b = await instances.start("--role", "web");
  }, 60_000);
  afterAll(async () => instances?.stop());

  test("a scan requested through A runs once; streams on A and B both see it start and complete", async () => {
    expect(a.url).not.toBe(b.url);
    const callA = processClient(a.url);
    const callB = processClient(b.url);
    expect((await callA("POST", "/api/v1/setup", undefined, { username: "admin", password: PASSWORD })).status).toBe(201);
    const { body: session } = await callB("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    const token = session.token as string;
    const { body: library } = await callA("POST", "/api/v1/libraries", token, { name: "shared", path: libraryRoot });

    // A stream on each instance: whichever one runs the scan, the other's stream needs the relay.
    const streams = [a, b].map((server) => scanStreamTranscript(server.url, token));
    const transcripts = () => streams.map((stream) => stream.transcript());
    const adminStreams = [a, b].map((server) => scanStreamTranscript(server.url, token, ADMIN_SCAN_STREAM));
    const adminTranscripts = () => adminStreams.map((stream) => stream.transcript());
    await waitFor(() => [...transcripts(), ...adminTranscripts()].every((text) => text.includes(": connected")), "the streams to connect");

    const { status, body: requested } = await callA("POST", `/api/v1/libraries/${library.id}/scan`, token);
    expect(status).toBe(202);
    await waitFor(() => transcripts().every((text) => text.includes("event: scan.completed")), "both streams to see the scan complete", 60_000);
    await Promise.all(streams.map((stream) => stream.stop()));
    for (const transcript of transcripts()) {
      expect(transcript.match(/event: scan\.started/g)).toHaveLength(1);
      expect(transcript.match(/event: scan\.completed/g)).toHaveLength(1);
      expect(transcript).toContain(requested.scanId);
    }
    // Only A makes thumbnails: B's admin stream counts them down to none through LISTEN/NOTIFY.
    await waitFor(() => adminTranscripts().every(thumbnailsCountedToNone), "both admin streams to see the thumbnails all made", 60_000);
    await Promise.all(adminStreams.map((stream) => stream.stop()));
    const runs = (a.output() + b.output()).match(/scan started/g) ?? [];
    expect(runs).toHaveLength(1);
    const status_ = await callB("GET", `/api/v1/libraries/${library.id}/scan-status`, token);
    expect(status_.body).toMatchObject({ scanId: requested.scanId, status: "completed", booksAdded: BOOKS });
  }, 90_000);

  test("a deleted API key and a password reset through A are refused by B within 100 ms", async () => {
    const callA = processClient(a.url);
    const { body: session } = await callA("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    await expectRevocationEverywhere(callA, processClient(b.url), session.token, "revoked-reader");
  }, 30_000);

  test("failures counted through A refuse B's remembered HTTP Basic password within 100 ms", async () => {
    const callA = processClient(a.url);
    const { body: session } = await callA("POST", "/api/v1/auth/login", undefined, { username: "admin", password: PASSWORD });
    await expectThrottleEverywhere(callA, processClient(b.url), session.token, "throttled-reader", 3);
  }, 30_000);

  test("failed sign-ins counted through A hold on B", async () => {
    const attempt = (server: ServerProcess) =>
      processClient(server.url)("POST", "/api/v1/auth/login", undefined, { username: "admin", password: "not the password" });
    for (let failure = 0; failure < 3; failure++) expect((await attempt(a)).status).toBe(401);
    expect((await attempt(b)).status).toBe(429);
    expect((await attempt(a)).status).toBe(429);
  }, 30_000);
});
