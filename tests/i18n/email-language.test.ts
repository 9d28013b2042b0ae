/**
 * The verification email in its recipient's language (issue 35): a new account has chosen none,
 * so it is the server's `application.default_locale`, over SMTP, subject and text alike; the
 * page the person registered on does not change it. Runs with a translated catalog as the
 * default when one is there (else English).
 */
import { afterAll, expect, test } from "bun:test";
import { AVAILABLE_LOCALES, catalogOf } from "../../src/i18n/catalogs";
import { translatorFor } from "../../src/i18n/translator";
import { PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";
import { startInbox, type ReceivedMail } from "../auth/support/smtp";

const inbox = await startInbox();
afterAll(() => inbox.stop());

const DEFAULT = AVAILABLE_LOCALES.find((locale) => locale !== "en") ?? "en";

/** The message's text parts and subject, decoded (quoted-printable, base64, RFC 2047 words). */
function readable(mail: ReceivedMail): string {
  // Adjacent encoded words are one text (a character's bytes may be split between them).
  const words = mail.raw.replace(/(?:=\?utf-8\?b\?[^?]*\?=\s*)+/gi, (run) =>
    Buffer.concat([...run.matchAll(/=\?utf-8\?b\?([^?]*)\?=/gi)].map((word) => Buffer.from(word[1]!, "base64"))).toString("utf8"),
  );
  const base64Parts = [...words.matchAll(/Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*\r?\n([A-Za-z0-9+/=\r\n]+)/gi)].map((part) =>
    Buffer.from(part[1]!.replace(/\s/g, ""), "base64").toString("utf8"),
  );
  return [words, mail.decoded, ...base64Parts].join("\n").replace(/\r?\n[ \t]/g, " ");
}

forEachDatabase(
  "emails in the recipient's language",
  (server) => {
    test(`a new account's verification email is in the server's default language (${DEFAULT}), whatever the page's`, async () => {
      const registered = await server().json("POST", "/api/v1/auth/register", { username: "anna", email: "anna@example.org", password: PASSWORD }, { "accept-language": "en" });
      expect(registered.status).toBe(201);
      expect(registered.body.locale).toBeNull();
      const text = readable(await inbox.next());
      const { t } = translatorFor(DEFAULT);
      expect(catalogOf(DEFAULT)["email.verify.subject"]).toBeDefined();
      expect(text).toContain(t("email.verify.subject"));
      expect(text).toContain(t("email.verify.greeting", { username: "anna" }));
      expect(text).toContain(t("email.verify.ignore"));
    });
  },
  {
    application: { default_locale: DEFAULT },
    auth: { registration_enabled: true, email_confirmation_required: true },
    email: { smtp_host: "127.0.0.1", smtp_port: inbox.port, smtp_from_name: "Longbox Test", smtp_from_address: "longbox@example.org" },
  },
);
