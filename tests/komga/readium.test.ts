/**
 * Komelia's EPUB reader through the Komga API (issue 30, K4), request by request as its client
 * sends them (Snd-R/komga-client src/commonMain/kotlin/snd/komga/client/book/HttpBookClient.kt:
 * progression GET 207-213 (204 = none), PUT 215-220, positions 222-226, manifest 228-232,
 * resource 240-243; shapes in .../book/Readium.kt), answered as Komga's BookController.kt /
 * CommonBookController.kt answer them.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { createLibrary, makeCbz, placeFixture, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { decode, R2Positions, R2Progression } from "./schemas";

forEachDatabase(
  "Komga EPUB routes",
  (server) => {
    const reader = basic("reader", PASSWORD);
    const world = { epub: "", cbz: "", adminToken: "" };
    const komga = (path: string, init: { method?: string; body?: unknown } = {}) =>
      server().fetch(`/komga${path}`, {
        method: init.method ?? "GET",
        headers: { ...reader, accept: "*/*", ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });

    beforeAll(async () => {
      const session = await adminSession(server());
      world.adminToken = session.token;
      const admin = bearer(session.token);
      await createUser(server(), session.token, "reader");
      const root = tempFolder();
      placeFixture("epub/idpf-built/childrens-literature.epub", join(root, "Novel", "childrens-literature.epub"));
      await makeCbz(join(root, "Comic", "Comic 01.cbz"), { pages: 3, seed: 9 });
      const libraryId = (await createLibrary(server(), admin, { path: root, name: "Readium" })).id;
      expect((await scan(server(), admin, libraryId)).status).toBe("completed");
      const books = (await server().json("GET", "/api/v1/books?pageSize=50", undefined, admin)).body.data as { id: string; fileFormat: string }[];
      world.epub = books.find((book) => book.fileFormat === "epub")!.id;
      world.cbz = books.find((book) => book.fileFormat === "cbz")!.id;
    });

    test("manifest and resources under the Komga prefix, with the REST API's sandbox CSP", async () => {
      const manifest = await komga(`/api/v1/books/${world.epub}/manifest`);
      expect(manifest.status).toBe(200);
      expect(manifest.headers.get("content-type")).toStartWith("application/webpub+json");
      const body = (await manifest.json()) as { readingOrder: { href: string }[]; links: { href: string }[] };
      expect(body.links[0]!.href).toBe(`/komga/api/v1/books/${world.epub}/manifest`);
      const first = body.readingOrder[0]!.href;
      expect(first).toStartWith(`/komga/api/v1/books/${world.epub}/resource/`);
      const resource = await server().fetch(first, { headers: reader });
      expect(resource.status).toBe(200);
      expect((await resource.text()).length).toBeGreaterThan(0);
      const rest = await server().fetch(first.replace(/^\/komga/, ""), { headers: bearer(world.adminToken) });
      expect(rest.status).toBe(200);
      await rest.body?.cancel();
      expect(resource.headers.get("content-security-policy")).toBe(rest.headers.get("content-security-policy"));
      expect(resource.headers.get("content-security-policy")).toContain("sandbox");
      expect((await komga(`/api/v1/books/${world.epub}/resource/..%2F..%2Fetc%2Fpasswd`)).status).toBe(404);
      expect((await komga(`/api/v1/books/${world.cbz}/manifest`)).status).toBe(404);
    });

    test("positions, then progression: none (204), PUT (204), read back, and the book's page follows", async () => {
      const positions = await komga(`/api/v1/books/${world.epub}/positions`);
      expect(positions.status).toBe(200);
      const list = decode(R2Positions, await positions.json()) as { total: number; positions: { href: string; type: string; locations: { position: number; progression: number; totalProgression: number } }[] };
      expect(list.total).toBe(list.positions.length);
      expect(list.positions.map((position) => position.locations.position)).toEqual(list.positions.map((_, index) => index + 1));
      expect(list.positions.at(-1)!.locations.totalProgression).toBe(1);
      const hrefs = [...new Set(list.positions.map((position) => position.href))];
      expect(hrefs.length).toBeGreaterThan(1);

      expect((await komga(`/api/v1/books/${world.epub}/progression`)).status).toBe(204);
      const target = list.positions.find((position) => position.href === hrefs[1])!;
      const progression = {
        modified: "2026-01-02T03:04:05.678Z",
        device: { id: "komelia-1", name: "Komelia" },
        locator: { href: target.href, type: target.type, locations: { progression: 0, position: target.locations.position, totalProgression: target.locations.totalProgression } },
      };
      const put = await komga(`/api/v1/books/${world.epub}/progression`, { method: "PUT", body: progression });
      expect(put.status).toBe(204);
      const back = await komga(`/api/v1/books/${world.epub}/progression`);
      expect(back.status).toBe(200);
      const read = decode(R2Progression, await back.json()) as { modified: string; device: { id: string; name: string }; locator: { href: string; locations: { position: number } } };
      expect(read.device).toEqual(progression.device);
      expect(read.locator.href).toBe(target.href);
      expect(read.locator.locations.position).toBe(target.locations.position);
      expect(read.modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      const book = (await (await komga(`/api/v1/books/${world.epub}`)).json()) as { readProgress: { page: number; completed: boolean } };
      expect(book.readProgress).toMatchObject({ page: 2, completed: false });

      const bad = async (locator: unknown) => (await komga(`/api/v1/books/${world.epub}/progression`, { method: "PUT", body: { ...progression, locator } })).status;
      expect(await bad({ href: "nowhere.xhtml", type: "application/xhtml+xml", locations: { progression: 0 } })).toBe(400);
      expect(await bad({ href: target.href, type: target.type })).toBe(400);
    });

    test("an image book's progression is its page (locations.position within 1..pageCount)", async () => {
      const put = (position: number) =>
        komga(`/api/v1/books/${world.cbz}/progression`, {
          method: "PUT",
          body: { modified: "2026-01-02T03:04:05Z", device: { id: "d", name: "n" }, locator: { href: "page-002.jpg", type: "image/jpeg", locations: { position } } },
        });
      expect((await put(2)).status).toBe(204);
      const book = (await (await komga(`/api/v1/books/${world.cbz}`)).json()) as { readProgress: { page: number } };
      expect(book.readProgress.page).toBe(2);
      expect((await put(9)).status).toBe(400);
      expect((await komga(`/api/v1/books/${world.cbz}/positions`)).status).toBe(404);
      expect((await komga("/api/v1/books/01890000-0000-7000-8000-000000000000/progression")).status).toBe(404);
    });
  },
  { komga_api: { enabled: true } },
);
