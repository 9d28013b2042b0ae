/**
 * Scheduled scans (a cron-triggered scan observed over HTTP; a schedule change applies without
 * restart), the series strategies, and walking problems (symlink loops) that are reported but
 * never fatal.
 */
import { beforeAll, expect, test } from "bun:test";
import { mkdirSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, comicInfo, createLibrary, makeCbz, placeFixture, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("schedules, series strategies and walking", (server) => {
  let admin: Record<string, string>;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
  });

  test(
    "a cron schedule triggers a scan without restart; disabling it stops the schedule",
    async () => {
      const root = tempFolder();
      await makeCbz(join(root, "Timed", "Timed 1.cbz"), { seed: 900 });
      const library = await createLibrary(server(), admin, { path: root });
      const idle = await server().json("GET", `/api/v1/libraries/${library.id}/scan-status`, undefined, admin);
      expect(idle.body.status).toBe("idle");

      const enabled = await server().json(
        "PATCH",
        `/api/v1/libraries/${library.id}`,
        { scanning_config: { enabled: true, cron_schedule: "* * * * *" } },
        admin,
      );
      expect(enabled.status).toBe(200);
      let status = idle.body;
      const deadline = Date.now() + 70_000;
      while (Date.now() < deadline && status.status !== "completed") {
        await Bun.sleep(250);
        status = (await server().json("GET", `/api/v1/libraries/${library.id}/scan-status`, undefined, admin)).body;
      }
      expect(status).toMatchObject({ status: "completed", trigger: "schedule", booksAdded: 1 });

      const disabled = await server().json("PATCH", `/api/v1/libraries/${library.id}`, { scanningConfig: { enabled: false } }, admin);
      expect(disabled.body.scanningConfig.enabled).toBe(false);
      expect(server().server.services.schedules.scheduled().has(library.id)).toBe(false);
    },
    90_000,
  );

  test("flat: series from metadata and file names, folders ignored", async () => {
    const root = tempFolder();
    await makeCbz(join(root, "a", "Invincible 001.cbz"), { seed: 1 });
    await makeCbz(join(root, "b", "Invincible 002.cbz"), { seed: 2 });
    await makeCbz(join(root, "b", "whatever.cbz"), { seed: 3, comicInfo: comicInfo({ Series: "Invincible", Number: 3 }) });
    const library = await createLibrary(server(), admin, { path: root, series_strategy: "flat" });
    expect((await scan(server(), admin, library.id)).seriesCreated).toBe(1);
    const books = await booksOf(server(), admin, library.id);
    expect(new Set(books.map((book) => book.seriesName))).toEqual(new Set(["Invincible"]));
    expect(books.map((book) => book.number).sort()).toEqual([1, 2, 3]);
  });

  test("publisher_hierarchy: Publisher/Series/books", async () => {
    const root = tempFolder();
    await makeCbz(join(root, "Image", "Saga", "Saga 001.cbz"), { seed: 11 });
    await makeCbz(join(root, "Image", "Monstress", "Monstress 001.cbz"), { seed: 12 });
    await makeCbz(join(root, "Marvel", "Saga", "Saga 001.cbz"), { seed: 13 });
    const library = await createLibrary(server(), admin, { path: root, series_strategy: "publisher_hierarchy" });
    expect((await scan(server(), admin, library.id)).seriesCreated).toBe(3);
    const books = await booksOf(server(), admin, library.id);
    expect(books.map((book) => book.seriesName).sort()).toEqual(["Monstress", "Saga", "Saga"]);
  });

  test("calibre: Author/Title (id)/book.epub, series from the OPF", async () => {
    const root = tempFolder();
    placeFixture("epub/kavita/TitleWithVolume.epub", join(root, "Some Author", "Title With Volume (12)", "book.epub"));
    placeFixture("epub/komga/epub3.epub", join(root, "Other Author", "Standalone (13)", "book.epub"));
    const library = await createLibrary(server(), admin, { path: root, series_strategy: "calibre" });
    const status = await scan(server(), admin, library.id);
    expect(status).toMatchObject({ booksAdded: 2, seriesCreated: 2 });
    const books = await booksOf(server(), admin, library.id);
    expect(books.every((book) => book.fileFormat === "epub")).toBe(true);
    expect(books.map((book) => book.seriesName)).not.toContain("Standalone (13)");
  });

  test("an unreachable library fails its scan and deletes nothing; an unreachable folder keeps its books", async () => {
    const root = tempFolder();
    await makeCbz(join(root, "Kept", "Kept 1.cbz"), { seed: 31 });
    await makeCbz(join(root, "Share", "Share 1.cbz"), { seed: 32 });
    const library = await createLibrary(server(), admin, { path: root });
    expect((await scan(server(), admin, library.id)).booksAdded).toBe(2);

    // A sub-share goes away (here: its folder becomes a link to nowhere, as an unmounted mount point).
    renameSync(join(root, "Share"), join(tempFolder(), "Share"));
    symlinkSync(join(root, "not-mounted"), join(root, "Share"));
    const partial = await scan(server(), admin, library.id);
    expect(partial).toMatchObject({ status: "completed", booksDeleted: 0 });
    expect((await booksOf(server(), admin, library.id)).map((book) => book.title).sort()).toEqual(["Kept 1", "Share 1"]);

    // The whole library goes away.
    const away = `${root}.away`;
    renameSync(root, away);
    const failed = await scan(server(), admin, library.id);
    expect(failed.status).toBe("failed");
    expect(failed.failureReason).toContain("cannot be read");
    renameSync(away, root);
    expect(await booksOf(server(), admin, library.id, true)).toEqual([]);
  });

  test("a symbolic link loop is reported, not fatal: the other books are catalogued", async () => {
    const root = tempFolder();
    await makeCbz(join(root, "Real", "Real 1.cbz"), { seed: 21 });
    mkdirSync(join(root, "Loop"));
    symlinkSync(root, join(root, "Loop", "back-to-root"));
    symlinkSync(join(root, "missing-target"), join(root, "dangling"));
    const library = await createLibrary(server(), admin, { path: root });
    const status = await scan(server(), admin, library.id);
    expect(status).toMatchObject({ status: "completed", booksAdded: 1 });
    expect(server().logs.some((line) => line.includes("symbolic link loop"))).toBe(true);
  });
});
