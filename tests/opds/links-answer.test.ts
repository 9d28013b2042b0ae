/**
 * Every link an OPDS feed advertises (acquisition, image / thumbnail, page stream) answers 2xx
 * for the user it was shown to (issue 30): over a library of readable books, a file that never
 * became a readable book, an EPUB without any image and a comic with an empty page, in OPDS
 * 1.2 and 2.0.
 */
import { beforeAll, expect, test } from "bun:test";
import { unzipSync, zipSync } from "fflate";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { adminSession, basic, bearer, createUser, PASSWORD } from "../helpers/auth";
import { createLibrary, makeCbz, placeFixture, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

forEachDatabase("OPDS links answer", (server) => {
  const reader = basic("reader", PASSWORD);

  beforeAll(async () => {
    const session = await adminSession(server());
    const admin = bearer(session.token);
    await createUser(server(), session.token, "reader");
    const root = tempFolder();
    await makeCbz(join(root, "Good", "Good 01.cbz"), { pages: 2, seed: 1 });
    mkdirSync(join(root, "Broken"), { recursive: true });
    writeFileSync(join(root, "Broken", "Broken 01.cbz"), "this is not a zip archive");
    placeFixture("epub/idpf-built/hefty-water.epub", join(root, "Text", "hefty-water.epub"));
    const withEmptyPage = join(root, "Holes", "Holes 01.cbz");
    mkdirSync(dirname(withEmptyPage), { recursive: true });
    const good = await makeCbz(join(tempFolder(), "source.cbz"), { pages: 1, seed: 5 });
    const [page] = Object.values(unzipSync(new Uint8Array(await Bun.file(good).arrayBuffer())));
    writeFileSync(withEmptyPage, zipSync({ "page-001.jpg": page!, "page-002.jpg": new Uint8Array(0) }, { level: 0 }));
    const libraryId = (await createLibrary(server(), admin, { path: root, name: "Feeds" })).id;
    expect((await scan(server(), admin, libraryId)).status).toBe("completed");
  });

  /** The links of a feed that lead to content (not to other feeds), page streams expanded. */
  function contentLinks(text: string): string[] {
    const links: string[] = [];
    const counts = new Map<string, number>();
    for (const match of text.matchAll(/href="([^"]+)"[^>]*?pse:count="(\d+)"/g)) counts.set(match[1]!, Number(match[2]));
    const hrefs = [...text.matchAll(/"href"\s*:\s*"([^"]+)"|href="([^"]+)"/g)].map((match) => (match[1] ?? match[2])!.replaceAll("&amp;", "&"));
    for (const href of new Set(hrefs)) {
      const path = new URL(href, "http://localhost").pathname;
      if (/\/(file|thumbnail)$/.test(path)) links.push(href);
      else if (href.includes("{pageNumber}")) {
        const count = counts.get(href.replaceAll("&", "&amp;")) ?? counts.get(href) ?? 1;
        // PSE numbers pages from 0.
        for (let number = 0; number < count; number++) links.push(href.replace("{pageNumber}", String(number)).replace("{maxWidth}", "200"));
      }
    }
    return links;
  }

  test("acquisition, thumbnail and page stream links of every book and series answer 2xx", async () => {
    const checked: string[] = [];
    for (const feed of ["/opds/v1.2/recent?pageSize=50", "/opds/v1.2/series?pageSize=50", "/opds/v2/recent?pageSize=50", "/opds/v2/series?pageSize=50"]) {
      const response = await server().fetch(feed, { headers: reader });
      expect({ feed, status: response.status }).toEqual({ feed, status: 200 });
      for (const link of contentLinks(await response.text())) {
        const url = new URL(link, "http://localhost");
        const answer = await server().fetch(`${url.pathname}${url.search}`, { headers: reader });
        await answer.body?.cancel();
        expect({ link: url.pathname, status: answer.status, ok: answer.ok }).toMatchObject({ link: url.pathname, ok: true });
        checked.push(url.pathname);
      }
    }
    // The books that used to answer 404 / 422 were among them.
    expect(checked.filter((path) => path.endsWith("/file")).length).toBeGreaterThanOrEqual(4);
    expect(checked.some((path) => path.endsWith("/pages/1"))).toBe(true); // the empty second page of Holes 01
  });
});
