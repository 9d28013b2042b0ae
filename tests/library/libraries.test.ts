import { expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { booksOf, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("libraries", (server) => {
  let admin: Record<string, string>;
  let reader: Record<string, string>;

  test("setup: an admin and a plain user", async () => {
    const session = await adminSession(server());
    admin = bearer(session.token);
    await createUser(server(), session.token, "reader");
    reader = bearer((await login(server(), "reader")).token);
  });

  test("create with defaults, read back, list", async () => {
    const path = tempFolder();
    const created = await server().json("POST", "/api/v1/libraries", { name: "Comics", path }, admin);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Comics",
      defaultReadingDirection: "ltr",
      seriesStrategy: "series_volume",
      scanningConfig: { enabled: false, cronSchedule: null, defaultMode: "normal", scanOnStart: false },
      seriesCount: 0,
      bookCount: 0,
    });
    expect(created.body.path).toBe(path);
    const read = await server().json("GET", `/api/v1/libraries/${created.body.id}`, undefined, reader);
    expect(read.body.name).toBe("Comics");
    // The folder's path is for admins only.
    expect(read.body.path).toBeUndefined();
    expect((await server().json("GET", `/api/v1/libraries/${created.body.id}`, undefined, admin)).body.path).toBe(path);
    const list = await server().json("GET", "/api/v1/libraries", undefined, reader);
    expect(list.body.map((library: { name: string }) => library.name)).toContain("Comics");
  });

  test("snake_case and camelCase request fields are both accepted", async () => {
    const snake = await server().json(
      "POST",
      "/api/v1/libraries",
      {
        name: "Manga",
        path: tempFolder(),
        default_reading_direction: "rtl",
        series_strategy: "flat",
        scanning_config: { enabled: true, cron_schedule: "0 */6 * * *", default_mode: "deep", scan_on_start: false },
      },
      admin,
    );
    expect(snake.status).toBe(201);
    expect(snake.body).toMatchObject({
      defaultReadingDirection: "rtl",
      seriesStrategy: "flat",
      scanningConfig: { enabled: true, cronSchedule: "0 */6 * * *", defaultMode: "deep" },
    });
    const camel = await server().json(
      "PATCH",
      `/api/v1/libraries/${snake.body.id}`,
      { scanningConfig: { cronSchedule: "30 2 * * 0" }, defaultReadingDirection: "webtoon" },
      admin,
    );
    expect(camel.status).toBe(200);
    expect(camel.body.scanningConfig).toMatchObject({ enabled: true, cronSchedule: "30 2 * * 0", defaultMode: "deep" });
    expect(camel.body.defaultReadingDirection).toBe("webtoon");
  });

  test("the spec's cron examples are accepted; other forms are refused naming the field", async () => {
    for (const cron of ["0 0 * * *", "0 */6 * * *", "0 0 * * 0", "0 0 1 * *", "*/30 * * * *"]) {
      const created = await server().json(
        "POST",
        "/api/v1/libraries",
        { name: `cron ${cron}`, path: tempFolder(), scanning_config: { enabled: true, cron_schedule: cron } },
        admin,
      );
      expect(created.status).toBe(201);
    }
    for (const cron of ["* * * *", "0 0 0 * * *", "61 * * * *", "every day"]) {
      const refused = await server().json(
        "POST",
        "/api/v1/libraries",
        { name: `bad ${cron}`, path: tempFolder(), scanning_config: { enabled: true, cron_schedule: cron } },
        admin,
      );
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.details.fields)).toContain("scanningConfig.cronSchedule");
    }
  });

  test("paths must be absolute, existing, readable directories", async () => {
    const file = join(tempFolder(), "file.txt");
    writeFileSync(file, "x");
    const unreadable = join(tempFolder(), "locked");
    mkdirSync(unreadable, { mode: 0o000 });
    chmodSync(unreadable, 0o000);
    const cases: [string, string][] = [
      ["relative/path", "must be an absolute path"],
      ["/no/such/folder/anywhere", "does not exist"],
      [file, "is not a directory"],
    ];
    for (const [path, reason] of cases) {
      const { status, body } = await server().json("POST", "/api/v1/libraries", { name: `p ${path}`, path }, admin);
      expect(status).toBe(422);
      expect(body).toMatchObject({ error: "UnprocessableEntity", details: { fields: { path: reason } } });
    }
    if (process.getuid?.() !== 0) {
      // root reads everything, so only a normal user can observe this one
      const { status } = await server().json("POST", "/api/v1/libraries", { name: "locked", path: unreadable }, admin);
      expect(status).toBe(422);
    }
  });

  test("bad values are 400 naming the field", async () => {
    const direction = await server().json(
      "POST",
      "/api/v1/libraries",
      { name: "x", path: tempFolder(), default_reading_direction: "sideways" },
      admin,
    );
    expect(direction.status).toBe(400);
    expect(JSON.stringify(direction.body.details)).toContain("default_reading_direction");
    const noPath = await server().json("POST", "/api/v1/libraries", { name: "no path" }, admin);
    expect(noPath.status).toBe(400);
    expect(noPath.body.details.fields.path).toBe("is required");
  });

  test("overlapping paths and duplicate names are 409", async () => {
    const root = tempFolder();
    mkdirSync(join(root, "inner"));
    const outer = await createLibrary(server(), admin, { name: "outer", path: root });
    const inside = await server().json("POST", "/api/v1/libraries", { name: "inside", path: join(root, "inner") }, admin);
    expect(inside.status).toBe(409);
    const containing = await server().json("POST", "/api/v1/libraries", { name: "containing", path: join(root, "..") }, admin);
    expect(containing.status).toBe(409);
    const sameName = await server().json("POST", "/api/v1/libraries", { name: "outer", path: tempFolder() }, admin);
    expect(sameName.status).toBe(409);
    const selfUpdate = await server().json("PATCH", `/api/v1/libraries/${outer.id}`, { path: root }, admin);
    expect(selfUpdate.status).toBe(200);
  });

  test("only admins create, change and delete; everyone signed in reads; nobody anonymous", async () => {
    const path = tempFolder();
    expect((await server().json("POST", "/api/v1/libraries", { name: "r", path }, reader)).status).toBe(403);
    expect((await server().json("GET", "/api/v1/libraries")).status).toBe(401);
    const library = await createLibrary(server(), admin, { name: "guarded", path });
    expect((await server().json("PATCH", `/api/v1/libraries/${library.id}`, { name: "n" }, reader)).status).toBe(403);
    expect((await server().json("DELETE", `/api/v1/libraries/${library.id}`, undefined, reader)).status).toBe(403);
    expect((await server().json("GET", `/api/v1/libraries/${library.id}`, undefined, reader)).status).toBe(200);
  });

  test("unknown ids are 404, malformed ids 400", async () => {
    const missing = "01900000-0000-7000-8000-000000000000";
    expect((await server().json("GET", `/api/v1/libraries/${missing}`, undefined, admin)).status).toBe(404);
    expect((await server().json("PATCH", `/api/v1/libraries/${missing}`, { name: "x" }, admin)).status).toBe(404);
    expect((await server().json("DELETE", `/api/v1/libraries/${missing}`, undefined, admin)).status).toBe(404);
    expect((await server().json("POST", `/api/v1/libraries/${missing}/scan`, undefined, admin)).status).toBe(404);
    expect((await server().json("GET", "/api/v1/libraries/not-a-uuid", undefined, admin)).status).toBe(400);
  });

  test("counts leave out series whose books are all soft-deleted, as the series list does", async () => {
    const path = tempFolder();
    await makeCbz(join(path, "Stays", "Stays 1.cbz"), { seed: 71 });
    const gone = await makeCbz(join(path, "Goes", "Goes 1.cbz"), { seed: 72 });
    const library = await createLibrary(server(), admin, { name: "counted", path });
    await scan(server(), admin, library.id);
    expect((await server().json("GET", `/api/v1/libraries/${library.id}`, undefined, admin)).body).toMatchObject({ seriesCount: 2, bookCount: 2 });
    rmSync(gone);
    await scan(server(), admin, library.id);
    expect((await server().json("GET", `/api/v1/libraries/${library.id}`, undefined, admin)).body).toMatchObject({ seriesCount: 1, bookCount: 1 });
    expect((await server().json("GET", `/api/v1/series?libraryId=${library.id}`, undefined, admin)).body.total).toBe(1);
  });

  test("deleting a library removes its catalogue but never a media file", async () => {
    const path = tempFolder();
    const file = await makeCbz(join(path, "Saga", "Saga 001.cbz"));
    const library = await createLibrary(server(), admin, { name: "doomed", path });
    await scan(server(), admin, library.id);
    const [book] = await booksOf(server(), admin, library.id);
    expect(book).toBeDefined();
    expect((await server().json("DELETE", `/api/v1/libraries/${library.id}`, undefined, admin)).status).toBe(204);
    expect((await server().json("GET", `/api/v1/books/${book!.id}`, undefined, admin)).status).toBe(404);
    expect(existsSync(file)).toBe(true);
  });
});
