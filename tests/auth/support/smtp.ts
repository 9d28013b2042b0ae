/**
 * A real SMTP server (the smtp-server package) inside the test process, on a loopback port:
 * no authentication, no STARTTLS. Collects every message; `next()` waits for the next one.
 */
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";

export interface ReceivedMail {
  to: string[];
  raw: string;
  /** The message with quoted-printable soft line breaks and escapes decoded. */
  decoded: string;
}

export interface TestInbox {
  port: number;
  messages: ReceivedMail[];
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

export async function startInbox(): Promise<TestInbox> {
  const messages: ReceivedMail[] = [];
  let handedOut = 0;
  let waiting: (() => void) | undefined;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        messages.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw, decoded: decodeQuotedPrintable(raw) });
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
