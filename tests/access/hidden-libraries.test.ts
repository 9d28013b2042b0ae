/**
 * A library whose every series is hidden from a user is not listed to that user, not even its
 * name (issue 27, item 6), on REST, OPDS, the web UI and the Komga API; opening it is a 404.
 * Admins, and users whom no grant restricts, still see every library.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { booksOf, scannedLibrary } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";
import { hideSeriesFrom } from "../reading/support";

const SECRET = "Secret Shelf";
const OPEN = "Open Shelf";

forEachDatabase(
  "libraries whose every series is hidden",
  (server) => {
    let adminToken: string;
    let restricted: Record<string, string>;
    let unrestricted: Record<string, string>;
    let secretId: string;
    let openId: string;

    beforeAll(async () => {
      adminToken = (await adminSession(server())).token;
      secretId = await scannedLibrary(server(), adminToken, SECRET, { "Hidden/Hidden #001.cbz": "cbz/stump/book-image-format-test.zip" });
      openId = await scannedLibrary(server(), adminToken, OPEN, { "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz" });
      const readerId = await createUser(server(), adminToken, "reader");
      await createUser(server(), adminToken, "other");
      const [hidden] = await booksOf(server(), bearer(adminToken), secretId);
      await hideSeriesFrom(server(), readerId, hidden!.seriesId);
      restricted = bearer((await login(server(), "reader")).token);
      unrestricted = bearer((await login(server(), "other")).token);
    });

    const names = (libraries: { name: string }[]) => libraries.map((library) => library.name).sort();

    test("REST: not listed, and a 404 by id", async () => {
      expect(names((await server().json("GET", "/api/v1/libraries", undefined, restricted)).body)).toEqual([OPEN]);
      expect((await server().json("GET", `/api/v1/libraries/${secretId}`, undefined, restricted)).status).toBe(404);
      expect((await server().json("GET", `/api/v1/libraries/${openId}`, undefined, restricted)).status).toBe(200);
      expect(names((await server().json("GET", "/api/v1/libraries", undefined, unrestricted)).body)).toEqual([OPEN, SECRET]);
      expect(names((await server().json("GET", "/api/v1/libraries", undefined, bearer(adminToken))).body)).toEqual([OPEN, SECRET]);
    });

    test("OPDS 1.2 and 2: the root feeds do not name it; its feed is a 404", async () => {
      const atom = await (await server().fetch("/opds/v1.2/catalog", { headers: restricted })).text();
      expect(atom).toContain(OPEN);
      expect(atom).not.toContain(SECRET);
      const json = await (await server().fetch("/opds/v2/catalog", { headers: restricted })).text();
      expect(json).toContain(OPEN);
      expect(json).not.toContain(SECRET);
      expect((await server().fetch(`/opds/v1.2/libraries/${secretId}`, { headers: restricted })).status).toBe(404);
      expect(await (await server().fetch("/opds/v1.2/catalog", { headers: unrestricted })).text()).toContain(SECRET);
    });

    test("web UI: the home page does not name it; its page is a 404", async () => {
      const home = await (await server().fetch("/", { headers: restricted })).text();
      expect(home).toContain(OPEN);
      expect(home).not.toContain(SECRET);
      const page = await server().fetch(`/libraries/${secretId}`, { headers: restricted });
      expect(page.status).toBe(404);
      expect(await page.text()).not.toContain(SECRET);
      expect(await (await server().fetch("/", { headers: unrestricted })).text()).toContain(SECRET);
    });

    test("Komga API: not listed, and a 404 by id", async () => {
      expect(names(await (await server().fetch("/kg/api/v1/libraries", { headers: restricted })).json())).toEqual([OPEN]);
      expect((await server().fetch(`/kg/api/v1/libraries/${secretId}`, { headers: restricted })).status).toBe(404);
      expect(names(await (await server().fetch("/kg/api/v1/libraries", { headers: unrestricted })).json())).toEqual([OPEN, SECRET]);
    });
  },
  { komga_api: { enabled: true, prefix: "kg" } },
);
