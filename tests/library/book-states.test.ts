/**
 * Every row of the specification's Book state table, on real files: a vanished file
 * soft-deletes its book (hidden, progress kept), a returning file restores it with its
 * metadata, a moved or renamed file keeps its id, metadata and progress (also across series
 * folders), a modified file is updated in place, and permanent deletion goes only through the API.
 */
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer } from "../helpers/auth";
import { booksOf, comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

forEachDatabase("book states", (server) => {
  let admin: Record<string, string>;
  let adminId: string;
  let root: string;
  let libraryId: string;
  const byTitle = async (title: string, deleted = false) =>
    (await booksOf(server(), admin, libraryId, deleted)).find((book) => book.title === title);

  beforeAll(async () => {
    const session = await adminSession(server());
    admin = bearer(session.token);
    adminId = session.user.id;
    root = tempFolder();
    await makeCbz(join(root, "Saga", "Saga 001.cbz"), { seed: 1, pages: 3 });
    await makeCbz(join(root, "Saga", "Saga 002.cbz"), { seed: 2, pages: 4 });
    await makeCbz(join(root, "Other Folder", "book.cbz"), {
      seed: 3,
      pages: 2,
      comicInfo: comicInfo({ Title: "The Beginning", Series: "Captain Science", Number: 1, Manga: "YesAndRightToLeft" }),
    });
    libraryId = (await createLibrary(server(), admin, { name: "states", path: root })).id;
  });

  /** Progress as stored, written directly (the progress endpoints belong to the reading API). */
  const setProgress = (bookId: string, page: number) =>
    rawQuery(
      server(),
      "INSERT INTO read_progress (user_id, book_id, page, completed, updated_at) VALUES ($1, $2, $3, false, $4)",
      adminId,
      bookId,
      page,
      new Date(),
    );

  test("a first scan catalogues every file: series per folder, metadata names win", async () => {
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ status: "completed", filesDiscovered: 3, filesProcessed: 3, booksAdded: 3, seriesCreated: 2, errors: 0 });
    const books = await booksOf(server(), admin, libraryId);
    expect(books.map((book) => book.title).sort()).toEqual(["Saga 001", "Saga 002", "The Beginning"]);
    const captain = await byTitle("The Beginning");
    expect(captain).toMatchObject({ seriesName: "Captain Science", number: 1, pageCount: 2, analyzed: true, readingDirection: "rtl" });
    const saga = await byTitle("Saga 002");
    expect(saga).toMatchObject({ seriesName: "Saga", number: 2, fileFormat: "cbz", readingDirection: "ltr", deleted: false });
    expect(saga!.fileHash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("an unchanged library rescans without opening a file", async () => {
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ filesDiscovered: 3, filesProcessed: 3, booksAdded: 0, booksUpdated: 0, booksDeleted: 0 });
  });

  test("present -> soft-deleted when the file vanishes; hidden from lists, progress kept", async () => {
    const saga1 = (await byTitle("Saga 001"))!;
    await setProgress(saga1.id, 2);
    const parked = join(tempFolder(), "parked.cbz");
    renameSync(saga1.filePath, parked);
    const status = await scan(server(), admin, libraryId);
    expect(status.booksDeleted).toBe(1);
    expect(await byTitle("Saga 001")).toBeUndefined();
    const deleted = (await byTitle("Saga 001", true))!;
    expect(deleted).toMatchObject({ id: saga1.id, deleted: true });
    expect(deleted.readProgress).toMatchObject({ page: 2, completed: false });
    const single = await server().json("GET", `/api/v1/books/${saga1.id}`, undefined, admin);
    expect(single.body.deleted).toBe(true);

    // soft-deleted -> present: the same file returns (same hash), with its metadata and progress
    renameSync(parked, saga1.filePath);
    const back = await scan(server(), admin, libraryId);
    expect(back.booksRestored).toBe(1);
    const restored = (await byTitle("Saga 001"))!;
    expect(restored).toMatchObject({ id: saga1.id, deleted: false, seriesId: saga1.seriesId, createdAt: saga1.createdAt });
    expect(restored.readProgress).toMatchObject({ page: 2 });
  });

  test("a renamed file keeps its id, metadata and progress", async () => {
    const book = (await byTitle("Saga 002"))!;
    await setProgress(book.id, 3);
    const renamed = join(root, "Saga", "Saga 002 (renamed).cbz");
    renameSync(book.filePath, renamed);
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ booksMoved: 1, booksAdded: 0, booksDeleted: 0 });
    const moved = (await booksOf(server(), admin, libraryId)).find((candidate) => candidate.id === book.id)!;
    expect(moved).toMatchObject({ filePath: renamed, createdAt: book.createdAt, fileHash: book.fileHash });
    expect(moved.readProgress).toMatchObject({ page: 3 });
  });

  test("a file moved across series folders keeps its id and progress and joins the new series", async () => {
    const book = (await booksOf(server(), admin, libraryId)).find((candidate) => candidate.filePath.includes("renamed"))!;
    mkdirSync(join(root, "Saga Deluxe"));
    const target = join(root, "Saga Deluxe", "Saga 002.cbz");
    renameSync(book.filePath, target);
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ booksMoved: 1, booksAdded: 0, booksDeleted: 0, seriesCreated: 1 });
    const moved = (await booksOf(server(), admin, libraryId)).find((candidate) => candidate.id === book.id)!;
    // A new series (the folder's); its only book's file name says "Saga", more than half of its
    // books, so that names it (the series rule, docs/api.md).
    expect(moved).toMatchObject({ filePath: target, seriesName: "Saga" });
    expect(moved.seriesId).not.toBe(book.seriesId);
    expect(moved.readProgress).toMatchObject({ page: 3 });
  });

  test("a file moved while its old copy is soft-deleted is recognised by hash", async () => {
    const book = (await byTitle("The Beginning"))!;
    const parked = join(tempFolder(), "away.cbz");
    renameSync(book.filePath, parked);
    await scan(server(), admin, libraryId);
    expect((await byTitle("The Beginning", true))?.id).toBe(book.id);
    renameSync(parked, join(root, "Saga", "captain.cbz"));
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ booksRestored: 1, booksAdded: 0 });
    expect((await byTitle("The Beginning"))?.id).toBe(book.id);
  });

  test("a modified file is re-analysed in place (same id, new hash and pages)", async () => {
    const book = (await byTitle("Saga 001"))!;
    await makeCbz(book.filePath, { seed: 99, pages: 5 });
    utimesSync(book.filePath, new Date(), new Date(Date.now() + 5000));
    const status = await scan(server(), admin, libraryId);
    expect(status).toMatchObject({ booksUpdated: 1, booksAdded: 0 });
    const updated = (await byTitle("Saga 001"))!;
    expect(updated).toMatchObject({ id: book.id, pageCount: 5 });
    expect(updated.fileHash).not.toBe(book.fileHash);
  });

  test("deep mode re-reads every file and counts as updated only books whose record changed", async () => {
    const unchanged = await scan(server(), admin, libraryId, "deep");
    expect(unchanged).toMatchObject({ mode: "deep", filesProcessed: 3, booksUpdated: 0, booksAdded: 0, booksDeleted: 0 });

    // A content change that keeps the file's size and modification time: a normal scan trusts
    // both (docs/api.md, Deviations), a deep scan finds it.
    const book = (await byTitle("The Beginning"))!;
    const { mtime } = statSync(book.filePath);
    await makeCbz(book.filePath, {
      seed: 3,
      pages: 2,
      comicInfo: comicInfo({ Title: "The Beginnin2", Series: "Captain Science", Number: 1, Manga: "YesAndRightToLeft" }),
    });
    expect(statSync(book.filePath).size).toBe(book.fileSize);
    utimesSync(book.filePath, mtime, mtime);
    expect(await scan(server(), admin, libraryId)).toMatchObject({ mode: "normal", booksUpdated: 0 });
    expect(await byTitle("The Beginning")).toBeDefined();
    expect(await scan(server(), admin, libraryId, "deep")).toMatchObject({ mode: "deep", filesProcessed: 3, booksUpdated: 1 });
    expect((await byTitle("The Beginnin2"))?.id).toBe(book.id);

    // Back as it was (for the tests below): one update again.
    await makeCbz(book.filePath, {
      seed: 3,
      pages: 2,
      comicInfo: comicInfo({ Title: "The Beginning", Series: "Captain Science", Number: 1, Manga: "YesAndRightToLeft" }),
    });
    utimesSync(book.filePath, mtime, mtime);
    expect(await scan(server(), admin, libraryId, "deep")).toMatchObject({ booksUpdated: 1 });
    expect((await byTitle("The Beginning"))?.id).toBe(book.id);
  });

  test("permanent deletion only through the API, and never of the media file", async () => {
    const book = (await byTitle("Saga 001"))!;
    const present = await server().json("DELETE", `/api/v1/books/${book.id}`, undefined, admin);
    expect(present.status).toBe(409);

    const parked = join(tempFolder(), "kept.cbz");
    renameSync(book.filePath, parked);
    await scan(server(), admin, libraryId);
    const purged = await server().json("DELETE", `/api/v1/books/${book.id}`, undefined, admin);
    expect(purged.status).toBe(204);
    expect((await server().json("GET", `/api/v1/books/${book.id}`, undefined, admin)).status).toBe(404);
    expect(existsSync(parked)).toBe(true);

    // the library-wide purge removes every soft-deleted book
    const other = (await byTitle("The Beginning"))!;
    rmSync(other.filePath);
    await scan(server(), admin, libraryId);
    const purge = await server().json("DELETE", `/api/v1/libraries/${libraryId}/deleted-books`, undefined, admin);
    expect(purge.body).toEqual({ removed: 1 });
    expect(await booksOf(server(), admin, libraryId, true)).toEqual([]);
  });
});
