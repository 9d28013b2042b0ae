/**
 * Usernames (issue 27, item 6): NFKC on every sign-in path (JSON login, the web form, HTTP
 * Basic, KOReader's x-auth-user) and for new accounts; new names with invisible, control or
 * bidi characters, or whose confusable skeleton (Unicode TS #39) equals an existing name's, are
 * refused; `config check` reports existing names that collide.
 */
import { beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { adminSession, basic, bearer, login, PASSWORD } from "../helpers/auth";
import { runLongbox } from "../helpers/cli";
import { forEachDatabase } from "../helpers/server";
import { rawQuery } from "../helpers/sql";

const FULLWIDTH_CAROL = "ｃａｒｏｌ";
const SYNC_KEY = "carol's sync key";

forEachDatabase(
  "usernames: NFKC and confusables",
  (server) => {
    let adminToken: string;
    const createUser = (username: string) =>
      server().json("POST", "/api/v1/users", { username, password: PASSWORD }, bearer(adminToken));

    beforeAll(async () => {
      adminToken = (await adminSession(server())).token;
      expect((await createUser("alice")).status).toBe(201);
    });

    test("a new name is taken in NFKC", async () => {
      const created = await createUser(FULLWIDTH_CAROL);
      expect([created.status, created.body.username]).toEqual([201, "carol"]);
      expect((await createUser("carol")).status).toBe(409);
    });

    test("names with invisible, control or bidi characters are refused with 400", async () => {
      for (const username of ["admin\u200b", "\u200balice2", "bob\u202etxt.exe", "eve\u2066", "dan\u0007", "zoe\u00ad", "ann\u3164", "tab\tname"]) {
        const refused = await createUser(username);
        expect({ username, status: refused.status }).toEqual({ username, status: 400 });
        expect(refused.body.details.fields.username).toMatch(/control, invisible or bidirectional/);
      }
    });

    test("a name whose confusable skeleton equals an existing one is refused with 409", async () => {
      for (const username of ["\u0430lice", "ALICE", "\u0391lice", "aIice", "ａｌｉｃｅ"]) {
        const refused = await createUser(username);
        expect({ username, status: refused.status }).toEqual({ username, status: 409 });
      }
      const registered = await server().json("POST", "/api/v1/auth/register", { username: "\u0430lice", password: PASSWORD });
      expect(registered.status).toBe(409);
      expect((await createUser("alicia")).status).toBe(201);
    });

    test("every sign-in path takes the name in NFKC", async () => {
      // JSON login and HTTP Basic.
      expect((await server().json("POST", "/api/v1/auth/login", { username: FULLWIDTH_CAROL, password: PASSWORD })).status).toBe(200);
      const me = await server().json("GET", "/api/v1/auth/me", undefined, basic(FULLWIDTH_CAROL, PASSWORD));
      expect([me.status, me.body.username]).toEqual([200, "carol"]);
      // The web sign-in form.
      const form = await server().fetch("/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: server().url },
        body: new URLSearchParams({ username: FULLWIDTH_CAROL, password: PASSWORD, next: "/" }),
        redirect: "manual",
      });
      expect(form.status).toBe(303);
      expect(form.headers.get("set-cookie")).toStartWith("longbox_session=");
      // KOReader sync: x-auth-user (the name's UTF-8 bytes, as KOReader sends them) with the MD5 of the sync key.
      const carol = await login(server(), "carol");
      expect((await server().json("PUT", "/api/v1/users/me/koreader-key", { key: SYNC_KEY }, bearer(carol.token))).status).toBe(200);
      const kosync = await server().fetch("/koreader/users/auth", {
        headers: { accept: "application/vnd.koreader.v1+json", "x-auth-user": Buffer.from(FULLWIDTH_CAROL).toString("latin1"), "x-auth-key": createHash("md5").update(SYNC_KEY).digest("hex") },
      });
      expect(kosync.status).toBe(200);
    });

    test("config check reports existing names that collide or hold refused characters", async () => {
      // Accounts named before the rule: written straight into the table.
      await createUser("bob");
      await createUser("mallory");
      await rawQuery(server(), "UPDATE users SET username = $1 WHERE username = $2", "b\u043Eb", "mallory");
      await createUser("trudy");
      await rawQuery(server(), "UPDATE users SET username = $1 WHERE username = $2", "tru\u200bdy", "trudy");
      const checked = await runLongbox(["config", "check", "--config", server().configPath]);
      expect(checked.code).toBe(0);
      expect(checked.stderr).toContain(`longbox: warning: these usernames look alike (Unicode TS #39 confusables): "bob", "b\u043Eb"`);
      expect(checked.stderr).toContain(`longbox: warning: the username "tru\\u{200B}dy" must not contain`);
      expect(checked.stderr).not.toContain("alicia");
      // The configuration printed on stdout stays parseable.
      expect(() => JSON.parse(checked.stdout.replace(/^#.*\n/, ""))).not.toThrow();
    });
  },
  { auth: { registration_enabled: true } },
);
