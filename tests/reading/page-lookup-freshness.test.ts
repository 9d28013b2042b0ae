/**
 * Page requests reuse the book lookup and the API-key lookup between requests (issue 14). A
 * change made through the API must still apply to the very next request: a revoked sharing-tag
 * grant, a series' tag removed, a deleted API key, a file gone from disk, a disabled account.
 */
import { beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { basic, PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";
import { bearer, fetchAs, scannedLibrary, type ScannedLibrary } from "./support";

const LAYOUT = {
  "Shared/Shared #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz",
  "Gone/Gone #001.cbz": "cbz/kavita/sorting.zip",
};

forEachDatabase("Page lookups stay current", (server) => {
  let library: ScannedLibrary;
  beforeAll(async () => {
    library = await scannedLibrary(server(), LAYOUT);
  });
  const admin = () => bearer(library.adminToken);
  const page = (name: string) => `/api/v1/books/${library.books[name]!.id}/pages/1`;

  test("a grant revoked or a series untagged hides the next page at once", async () => {
    const shared = library.books["Shared #001.cbz"]!;
    const tag = await server().json("POST", "/api/v1/sharing-tags", { name: "freshness" }, admin());
    expect(tag.status).toBe(201);
    await server().json("PUT", `/api/v1/series/${shared.seriesId}/sharing-tags`, { sharingTagIds: [tag.body.id] }, admin());
    expect((await server().json("PUT", `/api/v1/users/${library.readerId}/sharing-tags`, { sharingTagId: tag.body.id, accessMode: "allow" }, admin())).status).toBe(200);
    for (let request = 0; request < 3; request++) expect((await fetchAs(server(), library.readerToken, page("Shared #001.cbz"))).status).toBe(200);

    const grant = (accessMode: "allow" | "deny") =>
      server().json("PUT", `/api/v1/users/${library.readerId}/sharing-tags`, { sharingTagId: tag.body.id, accessMode }, admin());
    const pageStatus = async () => (await fetchAs(server(), library.readerToken, page("Shared #001.cbz"))).status;
    // Each change shows on the very next page request, whichever way it goes.
    expect((await grant("deny")).status).toBe(200);
    expect(await pageStatus()).toBe(404);
    expect((await server().fetch(`/api/v1/users/${library.readerId}/sharing-tags/${tag.body.id}`, { method: "DELETE", headers: admin() })).status).toBe(204);
    expect(await pageStatus()).toBe(200); // no grant left: the reader sees every series
    expect((await grant("deny")).status).toBe(200);
    expect(await pageStatus()).toBe(404);

    await server().json("PUT", `/api/v1/series/${shared.seriesId}/sharing-tags`, { sharingTagIds: [] }, admin());
    expect((await fetchAs(server(), library.readerToken, page("Shared #001.cbz"))).status).toBe(200);
  });

  test("a deleted API key is refused on the next page, with X-API-Key and with Basic", async () => {
    const created = await server().json("POST", "/api/v1/api-keys", { name: "reader key" }, bearer(library.readerToken));
    expect(created.status).toBe(201);
    const viaHeader = { "x-api-key": created.body.key as string };
    const viaBasic = basic("reader", created.body.key as string);
    for (const headers of [viaHeader, viaBasic, viaHeader]) expect((await server().fetch(page("Shared #001.cbz"), { headers })).status).toBe(200);
    const removed = await server().fetch(`/api/v1/api-keys/${created.body.apiKey.id}`, { method: "DELETE", headers: bearer(library.readerToken) });
    expect(removed.status).toBe(204);
    expect((await server().fetch(page("Shared #001.cbz"), { headers: viaHeader })).status).toBe(401);
    expect((await server().fetch(page("Shared #001.cbz"), { headers: viaBasic })).status).toBe(401);
    // The password still works through Basic.
    expect((await server().fetch(page("Shared #001.cbz"), { headers: basic("reader", PASSWORD) })).status).toBe(200);
  });

  test("a file removed from disk after pages were served is a clean 404, also for a remembered page", async () => {
    const path = page("Gone #001.cbz");
    const first = await fetchAs(server(), library.readerToken, path);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    rmSync(join(library.root, "Gone", "Gone #001.cbz"));
    const gone = await fetchAs(server(), library.readerToken, path);
    expect(gone.status).toBe(404);
    expect((await gone.json()).message).toContain("no longer on disk");
  });

  test("a disabled account is refused (403) on the next page, with its token and with Basic", async () => {
    const path = page("Shared #001.cbz");
    expect((await fetchAs(server(), library.readerToken, path)).status).toBe(200);
    expect((await server().fetch(path, { headers: basic("reader", PASSWORD) })).status).toBe(200);
    expect((await server().json("PUT", `/api/v1/users/${library.readerId}`, { disabled: true }, admin())).status).toBe(200);
    expect((await fetchAs(server(), library.readerToken, path)).status).toBe(403);
    expect((await server().fetch(path, { headers: basic("reader", PASSWORD) })).status).toBe(403);
  });
});
