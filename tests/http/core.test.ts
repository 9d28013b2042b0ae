import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { bearer, login } from "../helpers/auth";
import { booksOf, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("HTTP core, health and first-run setup", (server) => {
  test("GET /health answers ok with the version, without credentials", async () => {
    const { status, body } = await server().json("GET", "/health");
    expect(status).toBe(200);
    expect(body).toEqual({ status: "ok", database: "ok", version: expect.any(String) });
  });

  test("unknown routes get the contract's 404 body and a request id", async () => {
    const response = await server().fetch("/api/v1/no-such-thing");
    expect(response.status).toBe(404);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await response.json()).toEqual({ error: "NotFound", message: "no route for GET /api/v1/no-such-thing" });
  });

  test("a well-formed incoming X-Request-Id is echoed and appears in the log", async () => {
    const id = "trace-abc-12345";
    const response = await server().fetch("/api/v1/no-such-thing", { headers: { "x-request-id": id } });
    expect(response.headers.get("x-request-id")).toBe(id);
    expect(server().logs.some((line) => line.includes(`requestId=${id}`))).toBe(true);
  });

  test("every answered request is one access-log line with its status: a handler's answer, an error, a status() value", async () => {
    const accessLines = (id: string) => server().logs.filter((line) => / request /.test(line) && line.includes(`requestId=${id}`));
    await server().fetch("/health", { headers: { "x-request-id": "access-ok-1" } });
    await server().fetch("/api/v1/no-such-thing", { headers: { "x-request-id": "access-missing-1" } });
    await server().fetch("/api/v1/libraries", { headers: { "x-request-id": "access-denied-1" } });
    for (const [id, path, status] of [
      ["access-ok-1", "/health", 200],
      ["access-missing-1", "/api/v1/no-such-thing", 404],
      ["access-denied-1", "/api/v1/libraries", 401],
    ] as const) {
      const lines = accessLines(id);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`path=${path} status=${status}`);
    }
  });

  test("a hostile incoming X-Request-Id is replaced", async () => {
    const response = await server().fetch("/health", { headers: { "x-request-id": "bad id\twith spaces" } });
    // A generated one instead (not "no 'bad' in it": a random UUID holds those hex letters now and then).
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test("malformed JSON is a 400 with the error body, never a stack trace", async () => {
    const response = await server().fetch("/api/v1/setup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error).toBe("BadRequest");
    expect(JSON.stringify(body)).not.toContain("at ");
  });

  test("schema validation failures are 400 naming the fields", async () => {
    const { status, body } = await server().json("POST", "/api/v1/setup", { username: 42 });
    expect(status).toBe(400);
    expect(body.error).toBe("BadRequest");
    expect(Object.keys(body.details.fields)).toEqual(expect.arrayContaining(["username", "password"]));
  });

  test("setup refuses a password under 8 characters with 422", async () => {
    const { status, body } = await server().json("POST", "/api/v1/setup", { username: "admin", password: "1234567" });
    expect(status).toBe(422);
    expect(body).toMatchObject({ error: "UnprocessableEntity", details: { fields: { password: expect.any(String) } } });
  });

  test("setup creates the first admin once, then answers 409", async () => {
    const first = await server().json("POST", "/api/v1/setup", {
      username: "Admin",
      email: "admin@example.org",
      password: "correct horse",
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ username: "Admin", email: "admin@example.org", role: "admin" });
    expect(first.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(JSON.stringify(first.body)).not.toContain("argon2");

    const again = await server().json("POST", "/api/v1/setup", { username: "other", password: "correct horse" });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("Conflict");
  });

  test("passwords never reach the log", async () => {
    await server().json("POST", "/api/v1/setup", { username: "x", password: "s3cret-pa55word" });
    expect(server().logs.join("\n")).not.toContain("s3cret-pa55word");
  });

  test("an unexpected failure is 500 with the contract's fixed body and its request id; the cause is only logged", async () => {
    const admin = bearer((await login(server(), "Admin", "correct horse")).token);
    const root = tempFolder();
    await makeCbz(join(root, "Solo", "Solo 1.cbz"));
    const library = await createLibrary(server(), admin, { name: "internal-error", path: root });
    expect((await scan(server(), admin, library.id)).status).toBe("completed");
    const [book] = await booksOf(server(), admin, library.id);
    // Where uploaded series covers go, the data folder holds a file instead of a folder: a state
    // the service never makes itself, so storing the cover fails in a way no code path expects.
    const coverDir = join(server().dir, "data", "covers");
    mkdirSync(coverDir, { recursive: true });
    writeFileSync(join(coverDir, "series"), "not a folder");
    const upload = new FormData();
    upload.append("file", new Blob([await sharp({ create: { width: 8, height: 8, channels: 3, background: "red" } }).png().toBuffer()], { type: "image/png" }), "cover.png");
    const response = await server().fetch(`/api/v1/series/${book!.seriesId}/cover`, { method: "POST", headers: admin, body: upload });

    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toStartWith("application/json");
    expect(await response.text()).toBe('{"error":"InternalServerError","message":"An internal error occurred"}');
    const requestId = response.headers.get("x-request-id");
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = server().logs.find((line) => line.includes("unhandled error") && line.includes(`requestId=${requestId}`));
    expect(logged).toContain(join(coverDir, "series"));
    // Nothing half-done: the series has no cover recorded, and the server keeps answering.
    const series = await server().json("GET", `/api/v1/series/${book!.seriesId}`, undefined, admin);
    expect(series.body.hasCustomCover).toBe(false);
    expect((await server().json("GET", "/health")).status).toBe(200);
  });

  test("health is 503 once the database is unreachable", async () => {
    await server().server.services.database.close();
    const { status, body } = await server().json("GET", "/health");
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: "error", database: "unreachable" });
    // Counted with the status the handler chose (a status() value, not a Response or set.status).
    const logged = server().logs.filter((line) => / request /.test(line) && line.includes("path=/health"));
    expect(logged.at(-1)).toContain("status=503");
  });
});
