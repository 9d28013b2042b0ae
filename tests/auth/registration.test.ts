import { afterAll, expect, test } from "bun:test";
import { sha256 } from "../helpers/digests";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { rawQuery } from "../helpers/sql";
import { basic, PASSWORD } from "../helpers/auth";
import { waitFor } from "../helpers/server-processes";
import { startInbox, verificationLinkIn } from "./support/smtp";

const inbox = await startInbox();
afterAll(() => inbox.stop());

const smtp = { smtp_host: "127.0.0.1", smtp_port: inbox.port, smtp_from_name: "Longbox Test", smtp_from_address: "longbox@example.org" };
const withVerification = (email: Record<string, unknown> = {}, application: Record<string, unknown> = {}) => ({
  auth: { registration_enabled: true, email_confirmation_required: true, login_max_failures: 1000 },
  email: { ...smtp, verification_token_expiry_hours: 3, ...email },
  application,
});

const register = (server: TestServer, username: string, email?: string, password = PASSWORD) =>
  server.json("POST", "/api/v1/auth/register", { username, password, ...(email && { email }) });
const loginStatus = async (server: TestServer, username: string) =>
  (await server.json("POST", "/api/v1/auth/login", { username, password: PASSWORD })).status;
/** Follows a link against the test server, whatever origin the link was built on. */
const follow = (server: TestServer, link: string, accept = "application/json") => {
  const url = new URL(link);
  return server.fetch(`${url.pathname.replace(/^.*(?=\/api\/v1\/)/, "")}${url.search}`, { headers: { accept }, redirect: "manual" });
};

async function registerAndReceiveLink(server: TestServer, username: string) {
  const email = `${username}@example.org`;
  const registered = await register(server, username, email);
  expect(registered.status).toBe(201);
  const mail = await inbox.next();
  expect(mail.to).toEqual([email]);
  return { user: registered.body, mail, link: verificationLinkIn(mail) };
}

forEachDatabase(
  "registration and email verification",
  (server) => {
    test("registered -> unverified -> (link followed) -> active, with the email sent over SMTP", async () => {
      const { user, mail, link } = await registerAndReceiveLink(server(), "alice");
      expect(user).toMatchObject({ username: "alice", email: "alice@example.org", role: "user", emailVerified: false });
      expect(mail.decoded).toContain("Subject: Confirm your Longbox account");
      expect(mail.decoded).toContain("Longbox Test");
      // No base URL is configured: the link points at the server the request reached.
      expect(link).toStartWith(`${server().url}/api/v1/auth/verify-email?token=`);

      const refused = await server().json("POST", "/api/v1/auth/login", { username: "alice", password: PASSWORD });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: "EmailNotVerified" });
      const basicRefused = await server().json("GET", "/api/v1/auth/me", undefined, basic("alice", PASSWORD));
      expect(basicRefused.status).toBe(403);

      const followed = await server().fetch(link);
      expect(followed.status).toBe(200);
      expect(await followed.json()).toMatchObject({ emailVerified: true, user: { username: "alice", emailVerified: true } });
      expect(await loginStatus(server(), "alice")).toBe(200);
    });

    test("the link's token is stored only as a SHA-256, is single-use, and lives verification_token_expiry_hours", async () => {
      const { user, link } = await registerAndReceiveLink(server(), "bob");
      const token = new URL(link).searchParams.get("token")!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const rows = await rawQuery(server(), "SELECT token_hash, expires_at FROM email_verification_tokens WHERE user_id = $1", user.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.token_hash).toBe(sha256(token));
      const hours = (new Date(rows[0]!.expires_at as string | number).getTime() - Date.now()) / 3600_000;
      expect(hours).toBeGreaterThan(2.99);
      expect(hours).toBeLessThanOrEqual(3);

      expect((await follow(server(), link)).status).toBe(200);
      const again = await follow(server(), link);
      expect(again.status).toBe(400);
      expect((await again.json()).error).toBe("BadRequest");
    });

    test("a link followed after its expiry does not activate the account", async () => {
      const { user, link } = await registerAndReceiveLink(server(), "carl");
      await rawQuery(server(), "UPDATE email_verification_tokens SET expires_at = $1 WHERE user_id = $2", new Date(Date.now() - 1000), user.id);
      expect((await follow(server(), link)).status).toBe(400);
      expect(await loginStatus(server(), "carl")).toBe(403);
    });

    test("resend-verification answers 202 for any address, and mails a new link that replaces the old one", async () => {
      const { link: first } = await registerAndReceiveLink(server(), "dora");
      const unknown = await server().json("POST", "/api/v1/auth/resend-verification", { email: "nobody@example.org" });
      expect(unknown.status).toBe(202);
      const known = await server().json("POST", "/api/v1/auth/resend-verification", { email: "dora@example.org" });
      expect(known.status).toBe(202);
      const mail = await inbox.next();
      // The next message is Dora's: nothing was sent for the unknown address.
      expect(mail.to).toEqual(["dora@example.org"]);
      const second = verificationLinkIn(mail);
      expect(second).not.toBe(first);
      expect((await follow(server(), first)).status).toBe(400);
      expect((await follow(server(), second)).status).toBe(200);
      expect(await loginStatus(server(), "dora")).toBe(200);
      // Verified accounts get nothing more, still with 202.
      expect((await server().json("POST", "/api/v1/auth/resend-verification", { email: "dora@example.org" })).status).toBe(202);
    });

    test("resend-verification mails an account at most once a minute (the route is open)", async () => {
      await registerAndReceiveLink(server(), "fred");
      const before = inbox.messages.length;
      for (let attempt = 0; attempt < 3; attempt++) {
        expect((await server().json("POST", "/api/v1/auth/resend-verification", { email: "fred@example.org" })).status).toBe(202);
      }
      await inbox.next();
      await Bun.sleep(300);
      expect(inbox.messages.length - before).toBe(1);
    });

    test("a browser following the link is redirected to the login page", async () => {
      const { link } = await registerAndReceiveLink(server(), "erin");
      const response = await follow(server(), link, "text/html,application/xhtml+xml");
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/login?verified=1");
      const reused = await follow(server(), link, "text/html");
      expect(reused.headers.get("location")).toBe("/login?verification=failed");
    });

    test("registration input: email required, password of at least 8 characters, username and email unique regardless of case", async () => {
      expect((await register(server(), "nomail")).status).toBe(400);
      expect((await register(server(), "shorty", "shorty@example.org", "1234567")).status).toBe(422);
      await registerAndReceiveLink(server(), "frida");
      expect((await register(server(), "frida", "other@example.org")).status).toBe(409);
      const sameNameOtherCase = await register(server(), "Frida", "frida2@example.org");
      expect(sameNameOtherCase.status).toBe(409);
      expect(sameNameOtherCase.body.details).toEqual({ fields: { username: "taken" } });
      const sameEmailOtherCase = await register(server(), "frida2", "FRIDA@Example.org");
      expect(sameEmailOtherCase.status).toBe(409);
      expect(sameEmailOtherCase.body.details).toEqual({ fields: { email: "taken" } });
    });

    test("tokens from the links never reach the log", async () => {
      await Bun.sleep(20);
      const logs = server().logs.join("\n");
      const tokens = inbox.messages.flatMap((message) => /token=([A-Za-z0-9_-]+)/.exec(message.decoded)?.[1] ?? []);
      // The tests before sent links: with none to look for, nothing here would be checked.
      expect(tokens.length).toBeGreaterThan(0);
      expect(tokens.filter((token) => logs.includes(token))).toEqual([]);
    });
  },
  withVerification(),
);

forEachDatabase(
  "verification links on email.verification_url_base",
  (server) => {
    test("email.verification_url_base wins over application.base_url", async () => {
      const { link } = await registerAndReceiveLink(server(), "gina");
      expect(link).toStartWith("https://books.example.org/longbox/api/v1/auth/verify-email?token=");
      expect((await follow(server(), link)).status).toBe(200);
    });
  },
  withVerification({ verification_url_base: "https://books.example.org/longbox/" }, { base_url: "https://public.example.org" }),
);

forEachDatabase(
  "verification links on application.base_url",
  (server) => {
    test("without email.verification_url_base the link is built on application.base_url", async () => {
      const { link } = await registerAndReceiveLink(server(), "hank");
      expect(link).toStartWith("https://public.example.org/api/v1/auth/verify-email?token=");
    });
  },
  withVerification({}, { base_url: "https://public.example.org" }),
);

forEachDatabase(
  "registration without email confirmation",
  (server) => {
    test("the account is active at once and no email is sent", async () => {
      const before = inbox.messages.length;
      const registered = await register(server(), "ida", "ida@example.org");
      expect(registered.status).toBe(201);
      expect(registered.body).toMatchObject({ emailVerified: true, role: "user" });
      expect(await loginStatus(server(), "ida")).toBe(200);
      expect((await register(server(), "jim")).status).toBe(201);
      await Bun.sleep(100);
      expect(inbox.messages.length).toBe(before);
    });
  },
  { auth: { registration_enabled: true }, email: smtp },
);

forEachDatabase("registration disabled (the default)", (server) => {
  test("POST /api/v1/auth/register is 403", async () => {
    const response = await register(server(), "kim", "kim@example.org");
    expect(response.status).toBe(403);
    expect(response.body.error).toBe("Forbidden");
  });
});

/** An SMTP server that takes mail only from a client that authenticates (AUTH) as Longbox's account. */
const SMTP_ACCOUNT = { username: "longbox-mailer", password: "smtp account password 7f3a" };
const guardedInbox = await startInbox(SMTP_ACCOUNT);
afterAll(() => guardedInbox.stop());
const guardedSmtp = { ...smtp, smtp_port: guardedInbox.port };

forEachDatabase(
  "SMTP with authentication: email.smtp_username and smtp_password",
  (server) => {
    test("the verification email is sent after authenticating with the configured credentials", async () => {
      const registered = await register(server(), "mia", "mia@example.org");
      expect(registered.status).toBe(201);
      const mail = await guardedInbox.next();
      expect(mail).toMatchObject({ to: ["mia@example.org"], user: SMTP_ACCOUNT.username });
      expect(verificationLinkIn(mail)).toStartWith(server().url);
      await Bun.sleep(20);
      expect(server().logs.join("\n")).not.toContain(SMTP_ACCOUNT.password);
    });
  },
  withVerification({ ...guardedSmtp, smtp_username: SMTP_ACCOUNT.username, smtp_password: SMTP_ACCOUNT.password }),
);

forEachDatabase(
  "SMTP with authentication, wrong password",
  (server) => {
    test("the server refuses the login: no email, a clear error in the log (without the password), and the service carries on", async () => {
      const before = guardedInbox.messages.length;
      const refusedBefore = guardedInbox.refusedLogins.length;
      const registered = await register(server(), "nils", "nils@example.org");
      expect(registered.status).toBe(201);
      const failure = () => server().logs.find((line) => line.includes("the verification email could not be sent"));
      await waitFor(() => failure() !== undefined, "the failed email in the log", 10_000);
      expect(failure()).toContain("Invalid login");
      expect(failure()).toContain("535");
      expect(guardedInbox.refusedLogins.slice(refusedBefore)).toContain(SMTP_ACCOUNT.username);
      expect(guardedInbox.messages.length).toBe(before);
      expect(server().logs.join("\n")).not.toContain("a wrong smtp password");
      // The account exists (unverified) and the server keeps answering.
      expect(await loginStatus(server(), "nils")).toBe(403);
      expect((await server().fetch("/health")).status).toBe(200);
    });
  },
  withVerification({ ...guardedSmtp, smtp_username: SMTP_ACCOUNT.username, smtp_password: "a wrong smtp password" }),
);

forEachDatabase(
  "SMTP that requires authentication, none configured",
  (server) => {
    test("the server refuses to take the mail: no email, a clear error in the log", async () => {
      const before = guardedInbox.messages.length;
      expect((await register(server(), "olaf", "olaf@example.org")).status).toBe(201);
      const failure = () => server().logs.find((line) => line.includes("the verification email could not be sent"));
      await waitFor(() => failure() !== undefined, "the failed email in the log", 10_000);
      expect(failure()).toMatch(/authentication required|530/i);
      expect(guardedInbox.messages.length).toBe(before);
      expect((await server().fetch("/health")).status).toBe(200);
    });
  },
  withVerification(guardedSmtp),
);
