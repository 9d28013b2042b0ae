import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load";
import { createLogger } from "../../src/logging/logger";
import { startServer } from "../../src/server";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";
import { adminSession, bearer } from "../helpers/auth";
import { ADMIN_GROUP, CLIENT_ID, CLIENT_SECRET, startIdentityProvider, TestBrowser } from "./support/oidc-provider";

const PROVIDER = "test";
const idp = await startIdentityProvider(PROVIDER);
afterAll(() => idp.stop());

/** Starts sign-in at Longbox and returns the provider's authorization URL it redirects to. */
async function beginAtLongbox(server: TestServer, browser: TestBrowser): Promise<URL> {
  const response = await browser.get(`${server.url}/api/v1/auth/oidc/${PROVIDER}/login`);
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(location.origin).toBe(idp.issuer);
  return location;
}

/** Where Longbox's callback finally sends the browser, with the fragment decoded. */
async function finishAtLongbox(browser: TestBrowser, callback: URL) {
  const response = await browser.get(callback);
  expect(response.status).toBe(302);
  const location = response.headers.get("location")!;
  const [path, fragment = ""] = location.split("#");
  return { path, params: Object.fromEntries(new URLSearchParams(fragment)) };
}

async function signIn(server: TestServer, subject: string) {
  const browser = new TestBrowser();
  const callback = await browser.signInAtProvider(await beginAtLongbox(server, browser), subject);
  return finishAtLongbox(browser, callback);
}

/** The key the suite's server encrypts stored secrets with. */
const ENCRYPTION_KEY = "oidc-suite-encryption-key-0123456789abcdef";

/**
 * A second server on the same database as `server` with another encryption key (its own data
 * folder): a misconfigured second instance, or the same server after the key changed.
 */
async function serverWithOtherKey(server: TestServer) {
  const dir = mkdtempSync(join(tmpdir(), "longbox-other-key-"));
  const settings = JSON.parse(readFileSync(server.configPath, "utf8"));
  settings.application.data_dir = join(dir, "data");
  settings.encryption_key = "another-encryption-key-fedcba9876543210";
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(settings));
  const logs: string[] = [];
  const log = createLogger({ level: "debug", format: "text", sink: (line) => void logs.push(line) });
  const running = await startServer(loadConfig({ path: configPath, env: {} }), { port: 0, log });
  return {
    url: running.url,
    logs,
    async stop() {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const me = async (server: TestServer, token: string) => (await server.json("GET", "/api/v1/auth/me", undefined, bearer(token))).body;

forEachDatabase(
  "OIDC single sign-on",
  (server) => {
    let adminToken: string;
    beforeAll(async () => {
      adminToken = (await adminSession(server())).token;
    });

    test("GET /api/v1/auth/oidc/providers lists the providers without credentials", async () => {
      const response = await server().json("GET", "/api/v1/auth/oidc/providers");
      expect(response.status).toBe(200);
      expect(response.body).toEqual([{ id: PROVIDER, name: "Test IdP" }]);
    });

    test("the authorization request carries PKCE (S256), state and nonce", async () => {
      const url = await beginAtLongbox(server(), new TestBrowser());
      const params = url.searchParams;
      expect(params.get("response_type")).toBe("code");
      expect(params.get("client_id")).toBe(CLIENT_ID);
      expect(params.get("code_challenge_method")).toBe("S256");
      expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(params.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(params.get("nonce")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(params.get("redirect_uri")).toBe(`${server().url}/api/v1/auth/oidc/${PROVIDER}/callback`);
      expect(params.get("scope")).toBe("openid profile email");
    });

    test("a first sign-in creates the account and redirects to the UI with the login result in the fragment", async () => {
      idp.accounts.set("sub-olga", { email: "olga@example.org", email_verified: true, preferred_username: "olga" });
      const { path, params } = await signIn(server(), "sub-olga");
      expect(path).toBe("/login");
      expect(structuredClone(params)).toMatchObject({ token_type: "Bearer", token: expect.any(String), refresh_token: expect.stringMatching(/^rt_/) });
      const user = await me(server(), params.token!);
      expect(user).toMatchObject({ username: "olga", email: "olga@example.org", role: "user", emailVerified: true });
      // The refresh token from the fragment works like any other.
      expect((await server().json("POST", "/api/v1/auth/refresh", { refresh_token: params.refresh_token })).status).toBe(200);

      // A later sign-in with the same subject is the same account, even after the email changed.
      idp.accounts.set("sub-olga", { email: "olga@new.example.org", email_verified: true, preferred_username: "olga" });
      const again = await signIn(server(), "sub-olga");
      expect((await me(server(), again.params.token!)).id).toBe(user.id);
    });

    test("a verified email links the identity to the existing account with that email", async () => {
      const created = await server().json(
        "POST",
        "/api/v1/users",
        { username: "linda", email: "linda@example.org", password: "linda's password" },
        bearer(adminToken),
      );
      idp.accounts.set("sub-linda", { email: "linda@example.org", email_verified: true, preferred_username: "linda.sso" });
      const { params } = await signIn(server(), "sub-linda");
      expect((await me(server(), params.token!)).id).toBe(created.body.id);
    });

    test("an unverified email does not link: a separate account without that email is created", async () => {
      const created = await server().json(
        "POST",
        "/api/v1/users",
        { username: "mallory-target", email: "target@example.org", password: "target password" },
        bearer(adminToken),
      );
      idp.accounts.set("sub-mallory", { email: "target@example.org", email_verified: false, preferred_username: "mallory-target" });
      const { params } = await signIn(server(), "sub-mallory");
      const user = await me(server(), params.token!);
      expect(user.id).not.toBe(created.body.id);
      expect(user).toMatchObject({ username: "mallory-target-2", email: null });

      // Taken names and emails are taken regardless of case.
      idp.accounts.set("sub-mallory-upper", { email: "TARGET@Example.org", email_verified: false, preferred_username: "MALLORY-TARGET" });
      const upper = await signIn(server(), "sub-mallory-upper");
      expect(await me(server(), upper.params.token!)).toMatchObject({ username: "MALLORY-TARGET-3", email: null });
    });

    test("a verified email links regardless of case", async () => {
      const created = await server().json(
        "POST",
        "/api/v1/users",
        { username: "lena", email: "lena@example.org", password: "lena's password" },
        bearer(adminToken),
      );
      idp.accounts.set("sub-lena", { email: "Lena@EXAMPLE.org", email_verified: true, preferred_username: "lena.sso" });
      const { params } = await signIn(server(), "sub-lena");
      expect((await me(server(), params.token!)).id).toBe(created.body.id);
    });

    test("membership of the admin group in the groups claim makes the account an admin", async () => {
      idp.accounts.set("sub-root", { email: "root@example.org", email_verified: true, preferred_username: "root", groups: ["staff", ADMIN_GROUP] });
      const { params } = await signIn(server(), "sub-root");
      expect((await me(server(), params.token!)).role).toBe("admin");
      idp.accounts.set("sub-staff", { preferred_username: "staffer", groups: ["staff"] });
      const staff = await signIn(server(), "sub-staff");
      expect((await me(server(), staff.params.token!)).role).toBe("user");
    });

    test("a tampered state is refused: no tokens, no account", async () => {
      idp.accounts.set("sub-tamper", { preferred_username: "tampered-state" });
      const browser = new TestBrowser();
      const callback = await browser.signInAtProvider(await beginAtLongbox(server(), browser), "sub-tamper");
      callback.searchParams.set("state", `${callback.searchParams.get("state")}x`);
      const { path, params } = await finishAtLongbox(browser, callback);
      expect(path).toBe("/login");
      expect(params.error).toBe("Unauthorized");
      expect(params.token).toBeUndefined();
      const users = await server().json("GET", "/api/v1/users?pageSize=500", undefined, bearer(adminToken));
      expect(users.body.data.map((user: { username: string }) => user.username)).not.toContain("tampered-state");
    });

    test("an ID token with another nonce than the one Longbox sent is refused", async () => {
      idp.accounts.set("sub-nonce", { preferred_username: "wrong-nonce" });
      const browser = new TestBrowser();
      const authorization = await beginAtLongbox(server(), browser);
      authorization.searchParams.set("nonce", "a-nonce-longbox-never-issued");
      const callback = await browser.signInAtProvider(authorization, "sub-nonce");
      const { params } = await finishAtLongbox(browser, callback);
      expect(params.error).toBe("Unauthorized");
      expect(params.token).toBeUndefined();
      await Bun.sleep(20);
      expect(server().logs.some((line) => line.includes("OIDC callback rejected"))).toBe(true);
    });

    test("a callback URL cannot be replayed (the pending sign-in is single use)", async () => {
      idp.accounts.set("sub-replay", { preferred_username: "replay" });
      const browser = new TestBrowser();
      const callback = await browser.signInAtProvider(await beginAtLongbox(server(), browser), "sub-replay");
      expect((await finishAtLongbox(browser, callback)).params.token).toEqual(expect.any(String));
      expect((await finishAtLongbox(browser, callback)).params.error).toBe("Unauthorized");
    });

    test("a pending sign-in holds its PKCE verifier and nonce encrypted, and still completes", async () => {
      idp.accounts.set("sub-sealed", { preferred_username: "sealed" });
      const browser = new TestBrowser();
      const authorization = await beginAtLongbox(server(), browser);
      const state = authorization.searchParams.get("state")!;
      const nonce = authorization.searchParams.get("nonce")!;
      // Observation only: what a copy of the database would show.
      const [row] = await rawQuery(server(), "SELECT code_verifier, nonce FROM oidc_pending_sign_ins WHERE state = $1", state);
      const stored = { verifier: String(row!.code_verifier), nonce: String(row!.nonce) };
      // The verifier is what hashes to the challenge the provider got: the stored value does not.
      const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");
      expect(challengeOf(stored.verifier)).not.toBe(authorization.searchParams.get("code_challenge"));
      expect(stored.nonce).not.toContain(nonce);
      for (const value of [stored.verifier, stored.nonce]) expect(value).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
      // Two attempts never store the same ciphertext (fresh IVs).
      const other = (await beginAtLongbox(server(), new TestBrowser())).searchParams.get("state")!;
      const [otherRow] = await rawQuery(server(), "SELECT code_verifier FROM oidc_pending_sign_ins WHERE state = $1", other);
      expect(otherRow!.code_verifier).not.toBe(stored.verifier);

      const callback = await browser.signInAtProvider(authorization, "sub-sealed");
      const { params } = await finishAtLongbox(browser, callback);
      expect((await me(server(), params.token!)).username).toBe("sealed");
      // The configured key was used: none was generated into the data folder.
      expect(existsSync(join(server().server.services.paths.dataDir, "encryption-key"))).toBe(false);
    });

    test("secrets moved to another pending sign-in do not open there: that sign-in is refused", async () => {
      idp.accounts.set("sub-swap", { preferred_username: "swapped" });
      const donor = (await beginAtLongbox(server(), new TestBrowser())).searchParams.get("state")!;
      const browser = new TestBrowser();
      const authorization = await beginAtLongbox(server(), browser);
      await rawQuery(
        server(),
        "UPDATE oidc_pending_sign_ins SET code_verifier = (SELECT code_verifier FROM oidc_pending_sign_ins WHERE state = $1) WHERE state = $2",
        donor,
        authorization.searchParams.get("state")!,
      );
      const { params } = await finishAtLongbox(browser, await browser.signInAtProvider(authorization, "sub-swap"));
      expect(params.error).toBe("Unauthorized");
      expect(params.token).toBeUndefined();
      await Bun.sleep(20);
      expect(server().logs.some((line) => line.includes("stored secrets do not open"))).toBe(true);
    });

    test("a sign-in started under another encryption key is refused cleanly, and the other server's own sign-ins work", async () => {
      const other = await serverWithOtherKey(server());
      try {
        idp.accounts.set("sub-rekeyed", { preferred_username: "rekeyed" });
        const browser = new TestBrowser();
        const callback = await browser.signInAtProvider(await beginAtLongbox(server(), browser), "sub-rekeyed");
        // The callback reaches the instance with the other key.
        const elsewhere = new URL(`${callback.pathname}${callback.search}`, other.url);
        const { path, params } = await finishAtLongbox(browser, elsewhere);
        expect(path).toBe("/login");
        expect(params.error).toBe("Unauthorized");
        expect(params.error_description).toContain("sign in again");
        expect(params.token).toBeUndefined();
        await Bun.sleep(20);
        expect(other.logs.some((line) => line.includes("started under another encryption key"))).toBe(true);
        const users = await server().json("GET", "/api/v1/users?pageSize=500", undefined, bearer(adminToken));
        expect(users.body.data.map((user: { username: string }) => user.username)).not.toContain("rekeyed");

        // Started and finished on the same server, the sign-in completes.
        const again = new TestBrowser();
        const started = await again.get(`${other.url}/api/v1/auth/oidc/${PROVIDER}/login`);
        const returned = await again.signInAtProvider(new URL(started.headers.get("location")!), "sub-rekeyed");
        const finished = await finishAtLongbox(again, new URL(`${returned.pathname}${returned.search}`, other.url));
        expect(finished.params.token).toEqual(expect.any(String));
      } finally {
        await other.stop();
      }
    });

    test("an unknown provider is 404", async () => {
      expect((await server().json("GET", "/api/v1/auth/oidc/nope/login")).status).toBe(404);
    });

    test("tokens and the client secret never reach the log", async () => {
      idp.accounts.set("sub-quiet", { preferred_username: "quiet" });
      const { params } = await signIn(server(), "sub-quiet");
      await Bun.sleep(20);
      const logs = server().logs.join("\n");
      expect(logs).not.toContain(params.token!);
      expect(logs).not.toContain(params.refresh_token!);
      expect(logs).not.toContain(CLIENT_SECRET);
    });
  },
  {
    encryption_key: ENCRYPTION_KEY,
    auth: {
      oidc: {
        providers: [
          { id: PROVIDER, name: "Test IdP", issuer: idp.issuer, client_id: CLIENT_ID, client_secret: CLIENT_SECRET, admin_group: ADMIN_GROUP },
        ],
      },
    },
  },
);
