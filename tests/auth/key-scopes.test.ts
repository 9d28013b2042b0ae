/**
 * What each credential may do (issue 27, item 5): creating or changing a credential needs an
 * interactive sign-in (an access token from a login, the web session), never an API key or
 * HTTP Basic; a "reader" API key reads and records reading progress (REST, Komga, KOReader
 * sync) and changes nothing else; a Komga client's session, which an API key may start, is no
 * web session.
 */
import { beforeAll, expect, test } from "bun:test";
import { basic, bearer, login, PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";
import { scannedLibrary, type ScannedLibrary } from "../reading/support";

const LAYOUT = { "Captain Science/Captain Science #001.cbz": "cbz/comicbox/Captain Science #001-comet.cbz" };
const BOOK = "Captain Science #001.cbz";

forEachDatabase(
  "API key scopes and credential creation",
  (server) => {
    let world: ScannedLibrary;
    let adminToken: string;
    const keys: Record<"readerFull" | "readerReader" | "adminFull" | "adminReader", string> = {} as never;

    const createKey = async (token: string, scope?: "full" | "reader") => {
      const created = await server().json("POST", "/api/v1/api-keys", { name: `key ${scope ?? "default"}`, ...(scope && { scope }) }, bearer(token));
      expect(created.status).toBe(201);
      return created.body as { apiKey: { id: string; scope: string }; key: string };
    };

    beforeAll(async () => {
      world = await scannedLibrary(server(), LAYOUT);
      adminToken = world.adminToken;
      keys.readerFull = (await createKey(world.readerToken)).key;
      keys.readerReader = (await createKey(world.readerToken, "reader")).key;
      keys.adminFull = (await createKey(adminToken, "full")).key;
      keys.adminReader = (await createKey(adminToken, "reader")).key;
    });

    const nonInteractive = () => ({
      "full key as X-API-Key": { "x-api-key": keys.readerFull },
      "full key as Bearer": bearer(keys.readerFull),
      "full key as Basic": basic("reader", keys.readerFull),
      "reader key": { "x-api-key": keys.readerReader },
      "Basic with the password": basic("reader", PASSWORD),
    });

    test("a key's scope is chosen at creation (full by default), listed, and anything else is refused", async () => {
      const plain = await createKey(world.readerToken);
      expect(plain.apiKey.scope).toBe("full");
      const reader = await createKey(world.readerToken, "reader");
      expect(reader.apiKey.scope).toBe("reader");
      const list = await server().json("GET", "/api/v1/api-keys", undefined, bearer(world.readerToken));
      const scopes = Object.fromEntries(list.body.map((key: { id: string; scope: string }) => [key.id, key.scope]));
      expect([scopes[plain.apiKey.id], scopes[reader.apiKey.id]]).toEqual(["full", "reader"]);
      const wrong = await server().json("POST", "/api/v1/api-keys", { name: "x", scope: "admin" }, bearer(world.readerToken));
      expect(wrong.status).toBe(400);
    });

    test("API keys and Basic cannot create API keys, KOReader sync keys nor change the password; a login can", async () => {
      const attempts: [string, string, unknown][] = [
        ["POST", "/api/v1/api-keys", { name: "minted" }],
        ["POST", "/api/v1/api-keys", { name: "minted", scope: "reader" }],
        ["POST", "/api/v1/users/me/koreader-key", undefined],
        ["PUT", "/api/v1/users/me/koreader-key", { key: "chosen sync key" }],
        ["PUT", "/api/v1/auth/me/password", { currentPassword: PASSWORD, newPassword: "another password 1" }],
      ];
      for (const [label, headers] of Object.entries(nonInteractive())) {
        for (const [method, path, body] of attempts) {
          const response = await server().json(method, path, body, headers);
          expect({ label, method, path, status: response.status }).toEqual({ label, method, path, status: 403 });
          expect(response.body.error).toBe("InteractiveSignInRequired");
          expect(response.body.message).toMatch(/needs an interactive sign-in/);
        }
      }
      // Nothing was minted.
      const list = await server().json("GET", "/api/v1/api-keys", undefined, bearer(world.readerToken));
      expect(list.body.some((key: { name: string }) => key.name === "minted")).toBe(false);
      expect((await server().json("GET", "/api/v1/users/me/koreader-key", undefined, bearer(world.readerToken))).body.configured).toBe(false);
      // Reading them is fine; an interactive sign-in creates them.
      expect((await server().json("GET", "/api/v1/api-keys", undefined, { "x-api-key": keys.readerReader })).status).toBe(200);
      expect((await server().json("POST", "/api/v1/users/me/koreader-key", undefined, bearer(world.readerToken))).status).toBe(201);
      // A token refreshed from a login is still an interactive sign-in.
      const session = await login(server(), "reader");
      const refreshed = await server().json("POST", "/api/v1/auth/refresh", { refresh_token: session.refresh_token });
      expect((await server().json("POST", "/api/v1/api-keys", { name: "from a refresh" }, bearer(refreshed.body.token))).status).toBe(201);
    });

    test("an admin's full key administers users but neither creates users nor resets passwords", async () => {
      const admin = { "x-api-key": keys.adminFull };
      const created = await server().json("POST", "/api/v1/users", { username: "minted", password: "a password 123" }, admin);
      expect([created.status, created.body.error]).toEqual([403, "InteractiveSignInRequired"]);
      const reset = await server().json("PUT", `/api/v1/users/${world.readerId}`, { password: "taken over 123" }, admin);
      expect([reset.status, reset.body.error]).toEqual([403, "InteractiveSignInRequired"]);
      await login(server(), "reader");
      const updated = await server().json("PUT", `/api/v1/users/${world.readerId}`, { disabled: false }, admin);
      expect(updated.status).toBe(200);
      expect((await server().json("POST", "/api/v1/users", { username: "made-by-login", password: "a password 123" }, bearer(adminToken))).status).toBe(201);
    });

    test("a reader key reads and records progress, and changes nothing else", async () => {
      const book = world.books[BOOK]!;
      const reader = { "x-api-key": keys.adminReader };
      expect((await server().json("GET", "/api/v1/libraries", undefined, reader)).status).toBe(200);
      expect((await server().json("GET", `/api/v1/books/${book.id}`, undefined, reader)).status).toBe(200);
      expect((await server().fetch(`/api/v1/books/${book.id}/pages/1`, { headers: reader })).status).toBe(200);
      expect((await server().json("GET", "/api/v1/users", undefined, reader)).status).toBe(200);
      // Progress: REST, Komga and KOReader sync.
      expect((await server().json("PUT", `/api/v1/books/${book.id}/progress`, { page: 2 }, reader)).status).toBe(200);
      expect((await server().json("DELETE", `/api/v1/books/${book.id}/progress`, undefined, reader)).status).toBe(204);
      expect((await server().json("PATCH", `/kg/api/v1/books/${book.id}/read-progress`, { page: 3 }, reader)).status).toBe(204);
      const progress = await server().json("GET", `/api/v1/books/${book.id}/progress`, undefined, bearer(adminToken));
      expect(progress.body.page).toBe(3);
      // Komga's other progress routes, and its searches, which are POSTs that only read.
      expect((await server().json("PUT", `/kg/api/v2/series/${book.seriesId}/read-progress/tachiyomi`, { lastBookNumberSortRead: 1 }, reader)).status).toBe(204);
      expect((await server().json("DELETE", `/kg/api/v1/books/${book.id}/read-progress`, undefined, reader)).status).toBe(204);
      expect((await server().json("POST", "/kg/api/v1/books/list", {}, reader)).status).toBe(200);
      expect((await server().json("POST", "/kg/api/v1/series/list", {}, reader)).status).toBe(200);
      expect((await server().json("PATCH", `/kg/api/v1/books/${book.id}/read-progress`, { page: 3 }, reader)).status).toBe(204);
      const kosync = await server().json(
        "PUT",
        "/koreader/syncs/progress",
        { document: "0123456789abcdef0123456789abcdef", percentage: 0.5, progress: "5", device: "Kobo", device_id: "0123456789ABCDEF0123456789ABCDEF" },
        { accept: "application/vnd.koreader.v1+json", "x-auth-user": keys.adminReader, "x-auth-key": "" },
      );
      expect(kosync.status).toBe(200);
      // Any other write: 403 with the reason.
      const writes: [string, string, unknown][] = [
        ["PATCH", `/api/v1/books/${book.id}`, { title: "Renamed" }],
        ["PATCH", `/api/v1/series/${book.seriesId}`, { name: "Renamed" }],
        ["POST", `/api/v1/libraries/${world.libraryId}/scan`, undefined],
        ["DELETE", `/api/v1/users/${world.readerId}`, undefined],
        ["PUT", `/api/v1/users/${world.readerId}`, { disabled: true }],
        ["DELETE", "/api/v1/users/me/koreader-key", undefined],
      ];
      for (const [method, path, body] of writes) {
        const response = await server().json(method, path, body, reader);
        expect({ method, path, status: response.status, code: response.body?.error }).toEqual({ method, path, status: 403, code: "ReaderKeyScope" });
      }
      expect((await server().json("GET", `/api/v1/books/${book.id}`, undefined, bearer(adminToken))).body.title).not.toBe("Renamed");
      // The same writes with a full key are allowed (here: one of them).
      expect((await server().json("PATCH", `/api/v1/books/${book.id}`, { summary: "edited by a full key" }, { "x-api-key": keys.adminFull })).status).toBe(200);
    });

    test("web pages: keys create no credentials; a reader key may mark a book read but not edit it", async () => {
      const book = world.books[BOOK]!;
      const reader = { "x-api-key": keys.adminReader, "content-type": "application/x-www-form-urlencoded" };
      const createKey = await server().fetch("/account/api-keys", { method: "POST", headers: reader, body: "name=minted", redirect: "manual" });
      expect(createKey.status).toBe(403);
      expect(await createKey.text()).toContain("needs an interactive sign-in");
      const full = { ...reader, "x-api-key": keys.adminFull };
      expect((await server().fetch("/account/api-keys", { method: "POST", headers: full, body: "name=minted", redirect: "manual" })).status).toBe(403);
      expect((await server().fetch(`/admin/users/${world.readerId}/api-keys`, { method: "POST", headers: full, body: "name=minted", redirect: "manual" })).status).toBe(403);
      expect((await server().fetch(`/admin/users/${world.readerId}/password`, { method: "POST", headers: full, body: "password=taken+over+123", redirect: "manual" })).status).toBe(403);
      const edit = await server().fetch(`/admin/libraries/${world.libraryId}/scan`, { method: "POST", headers: reader, body: "", redirect: "manual" });
      expect(edit.status).toBe(403);
      expect(await edit.text()).toContain("A reader API key may only read");
      const markRead = await server().fetch(`/books/${book.id}/read-state`, { method: "POST", headers: reader, body: "read=true", redirect: "manual" });
      expect(markRead.status).toBe(303);
    });

    test("a Komga session started with an API key is no web session", async () => {
      const komga = await server().fetch("/kg/api/v2/users/me", { headers: { "x-api-key": keys.readerFull } });
      expect(komga.status).toBe(200);
      const token = /KOMGA-SESSION=([^;]+)/.exec(komga.headers.getSetCookie().join("\n"))?.[1];
      expect(token).toBeDefined();
      // The session works for Komga...
      expect((await server().fetch("/kg/api/v1/libraries", { headers: { cookie: `KOMGA-SESSION=${token}` } })).status).toBe(200);
      // ...but presented as the web session it is unknown, so it cannot create a key.
      const me = await server().json("GET", "/api/v1/auth/me", undefined, { cookie: `longbox_session=${token}` });
      expect(me.status).toBe(401);
      const page = await server().fetch("/account", { headers: { cookie: `longbox_session=${token}` }, redirect: "manual" });
      expect(page.status).toBe(303);
    });

    test("Komga collections and read lists: a reader key, and the Komga session it starts, may read them but not make or change them", async () => {
      const reader = { "x-api-key": keys.adminReader };
      const first = await server().fetch("/kg/api/v1/collections", { headers: reader });
      expect(first.status).toBe(200);
      const session = /KOMGA-SESSION=([^;]+)/.exec(first.headers.getSetCookie().join("\n"))?.[1];
      expect(session).toStartWith("kr_");
      const cookie = { cookie: `KOMGA-SESSION=${session}` };
      expect((await server().fetch("/kg/api/v1/readlists", { headers: cookie })).status).toBe(200);
      for (const headers of [reader, cookie]) {
        for (const [path, body] of [["/kg/api/v1/collections", { name: "By a reader key", ordered: false, seriesIds: [] }], ["/kg/api/v1/readlists", { name: "By a reader key", ordered: true, bookIds: [] }]] as const) {
          const refused = await server().json("POST", path, body, headers);
          expect({ path, status: refused.status, code: refused.body?.error }).toEqual({ path, status: 403, code: "ReaderKeyScope" });
        }
      }
      // A full key makes one; the reader key can neither change nor delete it.
      const book = world.books[BOOK]!;
      const made = await server().json("POST", "/kg/api/v1/collections", { name: "By a full key", ordered: false, seriesIds: [book.seriesId] }, { "x-api-key": keys.adminFull });
      expect(made.status).toBe(200);
      for (const headers of [reader, cookie]) {
        expect((await server().json("PATCH", `/kg/api/v1/collections/${made.body.id}`, { name: "Renamed" }, headers)).status).toBe(403);
        expect((await server().json("DELETE", `/kg/api/v1/collections/${made.body.id}`, undefined, headers)).status).toBe(403);
      }
      expect((await server().json("GET", `/kg/api/v1/collections/${made.body.id}`, undefined, cookie)).body.name).toBe("By a full key");
    });

    test("Komga remember-me: a reader key's remembered session, and the sessions a client restart makes from it, stay a reader's", async () => {
      const first = await server().fetch("/kg/api/v2/users/me?remember-me=true", { headers: basic("admin", keys.adminReader) });
      expect(first.status).toBe(200);
      const remembered = /komga-remember-me=([^;]+)/.exec(first.headers.getSetCookie().join("\n"))?.[1];
      expect(remembered).toStartWith("kr_");
      // A client's restart: only the remember-me cookie; a new session is handed out.
      const restart = await server().fetch("/kg/api/v1/collections", { headers: { cookie: `komga-remember-me=${remembered}` } });
      expect(restart.status).toBe(200);
      const session = /KOMGA-SESSION=([^;]+)/.exec(restart.headers.getSetCookie().join("\n"))?.[1];
      expect(session).toStartWith("kr_");
      for (const cookie of [`komga-remember-me=${remembered}`, `KOMGA-SESSION=${session}`]) {
        const refused = await server().json("POST", "/kg/api/v1/collections", { name: "By a remembered reader key", ordered: false, seriesIds: [] }, { cookie });
        expect({ cookie: cookie.split("=")[0], status: refused.status, code: refused.body?.error }).toEqual({ cookie: cookie.split("=")[0], status: 403, code: "ReaderKeyScope" });
      }
    });
  },
  { komga_api: { enabled: true, prefix: "kg" } },
);
