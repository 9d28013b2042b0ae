/**
 * A real SMTP server (the smtp-server package) inside the test process, on a loopback port,
 * without STARTTLS: open to anyone, or requiring AUTH with the given credentials. Collects every
 * message; `next()` waits for the next one.
 */
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

export interface ReceivedMail {
  to: string[];
  /** The user the sending client authenticated as (AUTH), if it did. */
  user?: string;
  raw: string;
  /** The message with quoted-printable soft line breaks and escapes decoded. */
  decoded: string;
}

export interface TestInbox {
  port: number;
  messages: ReceivedMail[];
  /** AUTH attempts the server refused (wrong username or password). */
  refusedLogins: string[];
  /** Resolves with the first message not yet handed out (waiting for it if needed). */
  next(timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

function decodeQuotedPrintable(text: string): string {
  const bytes = text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, "latin1").toString("utf8");
}

export interface SmtpCredentials {
  username: string;
  password: string;
}

/** An inbox open to any client, or (`requireAuth`) only to one that authenticates with these credentials. */
export async function startInbox(requireAuth?: SmtpCredentials): Promise<TestInbox> {
  const messages: ReceivedMail[] = [];
  const refusedLogins: string[] = [];
  let handedOut = 0;
  let waiting: (() => void) | undefined;
  const server = new SMTPServer({
    authOptional: !requireAuth,
    disabledCommands: requireAuth ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    // AUTH without TLS: the test runs on loopback only.
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (requireAuth && auth.username === requireAuth.username && auth.password === requireAuth.password) {
        callback(null, { user: auth.username });
        return;
      }
      refusedLogins.push(auth.username ?? "");
      callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const user = typeof session.user === "string" ? session.user : undefined;
        messages.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), user, raw, decoded: decodeQuotedPrintable(raw) });
        waiting?.();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    refusedLogins,
    async next(timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length <= handedOut) {
        if (Date.now() > deadline) throw new Error("no email arrived");
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 50);
        });
      }
      return messages[handedOut++]!;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The verification link of a message. */
export function verificationLinkIn(mail: ReceivedMail): string {
  const match = /https?:\/\/[^\s"<>]+\/api\/v1\/auth\/verify-email\?token=[A-Za-z0-9_-]+/.exec(mail.decoded);
  if (!match) throw new Error(`no verification link in:\n${mail.decoded}`);
  return match[0];
}
