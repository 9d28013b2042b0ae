/**
 * Where the Komga API lives and what its cookies say: a custom prefix behind a public https
 * address with a path gives cookies that path and `Secure` (Komelia keeps only cookies whose
 * path is the server address's path); browsers' XMLHttpRequest gets no Basic challenge.
 * Clients that ignore cookies hold one session each, and strangers' bodies are never read.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, basic, bearer, createUser, login as signIn, PASSWORD } from "../helpers/auth";
import { endlessBody, fetchWithin } from "../helpers/request-bodies";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

/** The value of the cookie `name` a response sets; undefined when it sets none. */
function setCookieValue(response: Response, name: string): string | undefined {
  const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  return line?.slice(name.length + 1).split(";")[0];
}

forEachDatabase(
  "Komga API cookie scope",
  (server) => {
    let readerId: string;
    beforeAll(async () => {
      const session = await adminSession(server());
      readerId = await createUser(server(), session.token, "reader");
    });

    /** The reader's stored sessions: cookie sessions are rows of the refresh-token store, which no route lists. */
    const storedSessions = async () => Number((await rawQuery(server(), "SELECT COUNT(*) AS n FROM refresh_tokens WHERE user_id = $1", readerId))[0]?.n);

    test("the API answers under the configured prefix only", async () => {
      const moved = await server().fetch("/komga/api/v2/users/me", { headers: basic("reader", PASSWORD) });
      expect(moved.status).toBe(404);
      await moved.body?.cancel();
      const here = await server().fetch("/kg/api/v2/users/me", { headers: basic("reader", PASSWORD) });
      expect(here.status).toBe(200);
      await here.body?.cancel();
    });

    test("cookies take the public path of the prefix and are Secure on an https address", async () => {
      const response = await server().fetch("/kg/api/v2/users/me?remember-me=true", { headers: basic("reader", PASSWORD) });
      expect(response.status).toBe(200);
      await response.body?.cancel();
      const cookies = response.headers.getSetCookie();
      expect(cookies).toHaveLength(2);
      for (const cookie of cookies) {
        expect(cookie).toMatch(/^(KOMGA-SESSION|komga-remember-me)=ks_[A-Za-z0-9_-]{43}; /);
        expect(cookie.split("; ").slice(1)).toEqual(expect.arrayContaining(["Path=/longbox/kg", "HttpOnly", "SameSite=Lax", "Secure"]));
      }
    });

    test("an XMLHttpRequest without credentials gets a 401 without the Basic challenge; others get the challenge", async () => {
      const xhr = await server().fetch("/kg/api/v1/libraries", { headers: { "x-requested-with": "XMLHttpRequest" } });
      expect(xhr.status).toBe(401);
      expect(xhr.headers.get("www-authenticate")).toBeNull();
      await xhr.body?.cancel();
      const plain = await server().fetch("/kg/api/v1/libraries");
      expect(plain.headers.get("www-authenticate")).toBe('Basic realm="Realm"');
      await plain.body?.cancel();
      const wrong = await server().fetch("/kg/api/v1/libraries", { headers: basic("reader", "not the password") });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="Realm"');
      expect(wrong.headers.getSetCookie()).toEqual([]);
      await wrong.body?.cancel();
    });

    test("bodies are bounded and condition trees limited: 413 for a huge body, 400 for deep nesting or broken JSON, 401 before any of it for strangers", async () => {
      const reader = basic("reader", PASSWORD);
      const post = (body: string, headers: Record<string, string> = reader) =>
        server().fetch("/kg/api/v1/series/list", { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      const huge = JSON.stringify({ fullTextSearch: "x".repeat(200_000) });
      const tooBig = await post(huge);
      expect(tooBig.status).toBe(413);
      let deep: unknown = { libraryId: { operator: "is", value: "x" } };
      for (let level = 0; level < 40; level++) deep = { allOf: [deep] };
      const nested = await post(JSON.stringify({ condition: deep }));
      expect(nested.status).toBe(400);
      expect((await nested.json()).message).toContain("nested");
      expect((await post("{not json")).status).toBe(400);
      expect((await post(JSON.stringify({ condition: {} }))).status).toBe(200);
      expect((await post(JSON.stringify({}), {})).status).toBe(401);
      const patch = await server().fetch(`/kg/api/v1/books/01900000-0000-7000-8000-000000000000/read-progress`, {
        method: "PATCH",
        headers: { "content-type": "application/json", ...reader },
        body: JSON.stringify({ page: 1, padding: "x".repeat(100_000) }),
      });
      expect(patch.status).toBe(413);
    });

    test("a client that ignores cookies holds one session per credential and User-Agent, not one per request", async () => {
      const key = (await server().json("POST", "/api/v1/api-keys", { name: "script" }, bearer((await signIn(server(), "reader")).token))).body.key as string;
      const script = { "user-agent": "curl/8.5.0" };
      /** Sends `times` requests without cookies; the sessions (and remember-me) they were handed. */
      const cookieless = async (path: string, headers: Record<string, string>, times = 6) => {
        const handed = { sessions: new Set<string | undefined>(), remembered: new Set<string | undefined>() };
        for (let round = 0; round < times; round++) {
          const response = await server().fetch(`/kg${path}`, { headers: { ...script, ...headers } });
          expect(response.status).toBe(200);
          await response.body?.cancel();
          handed.sessions.add(setCookieValue(response, "KOMGA-SESSION"));
          handed.remembered.add(setCookieValue(response, "komga-remember-me"));
        }
        return handed;
      };
      const before = await storedSessions();
      const byBasic = await cookieless("/api/v1/libraries", basic("reader", PASSWORD));
      const byKey = await cookieless("/api/v1/libraries", { "x-api-key": key });
      const login = await cookieless("/api/v2/users/me?remember-me=true", basic("reader", PASSWORD));
      for (const handed of [byBasic.sessions, byKey.sessions, login.sessions, login.remembered]) {
        expect(handed.size).toBe(1);
        expect([...handed][0]).toMatch(/^ks_/);
      }
      // Basic with or without remember-me is the same client; the API key is another; remember-me is its own session.
      expect([...login.sessions]).toEqual([...byBasic.sessions]);
      expect([...byKey.sessions]).not.toEqual([...byBasic.sessions]);
      expect(await storedSessions()).toBe(before + 3);
      // A restart that sends the remember-me cookie alone, and keeps not sending the new session.
      const restarts = await cookieless("/api/v1/libraries", { cookie: `komga-remember-me=${[...login.remembered][0]}` }, 3);
      expect(restarts.sessions.size).toBe(1);
      expect([...restarts.sessions][0]).toMatch(/^ks_/);
      expect(await storedSessions()).toBe(before + 4);

      // Another client (User-Agent) gets its own session; a logged-out session is not handed out again.
      const other = await server().fetch("/kg/api/v1/libraries", { headers: { "user-agent": "Komelia", ...basic("reader", PASSWORD) } });
      await other.body?.cancel();
      expect(setCookieValue(other, "KOMGA-SESSION")).not.toBe([...byBasic.sessions][0]);
      const logout = await server().fetch("/kg/api/logout", { method: "POST", headers: { cookie: `KOMGA-SESSION=${[...byBasic.sessions][0]}` } });
      expect(logout.status).toBe(204);
      const after = await cookieless("/api/v1/libraries", basic("reader", PASSWORD), 3);
      expect(after.sessions.size).toBe(1);
      expect(after.sessions).not.toContain([...byBasic.sessions][0]);
      expect(await storedSessions()).toBe(before + 6);

      // An app that fires its first requests at once (Komelia, Mihon) still starts one session.
      const burst = await Promise.all(
        Array.from({ length: 8 }, () => server().fetch("/kg/api/v1/libraries", { headers: { "user-agent": "Burst/1", "x-api-key": key } })),
      );
      for (const response of burst) await response.body?.cancel();
      expect(new Set(burst.map((response) => setCookieValue(response, "KOMGA-SESSION"))).size).toBe(1);
      expect(await storedSessions()).toBe(before + 7);
    });

    test("a write route answers a stranger 401 before reading the body", async () => {
      for (const [method, path] of [
        ["PATCH", "/kg/api/v1/books/01900000-0000-7000-8000-000000000000/read-progress"],
        ["POST", "/kg/api/v1/series/list"],
      ]) {
        const response = await fetchWithin(`${server().url}${path}`, {
          method,
          headers: { "content-type": "application/json" },
          body: endlessBody(`{"page":1,"padding":"never ends`),
        });
        expect({ path, status: response === "timeout" ? "timeout" : response.status }).toEqual({ path, status: 401 });
        if (response !== "timeout") {
          expect(response.headers.get("www-authenticate")).toBe('Basic realm="Realm"');
          await response.body?.cancel();
        }
      }
    });

    test("a forged or unknown session cookie is no session", async () => {
      const forged = await server().fetch("/kg/api/v1/libraries", { headers: { cookie: `KOMGA-SESSION=cs_${"A".repeat(43)}; komga-remember-me=nonsense` } });
      expect(forged.status).toBe(401);
      await forged.body?.cancel();
    });
  },
  // A small body limit, so that the test's bodies pass it without megabytes of padding.
  { komga_api: { enabled: true, prefix: "kg" }, application: { base_url: "https://books.example.org/longbox", max_request_body_bytes: 64 * 1024 } },
);
