/**
 * The verification email in its recipient's language (issue 35): a new account has chosen none,
 * so it is the server's `application.default_locale`, over SMTP, subject and text alike; the
 * page the person registered on does not change it. Runs with a translated catalog as the
 * default when one is there (else English).
 */
import { afterAll, expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { AVAILABLE_LOCALES, catalogOf } from "../../src/i18n/catalogs";
import { translatorFor } from "../../src/i18n/translator";
import { PASSWORD } from "../helpers/auth";
import { forEachDatabase } from "../helpers/server";
import { startInbox, type ReceivedMail } from "../auth/support/smtp";

const inbox = await startInbox();
afterAll(() => inbox.stop());

const DEFAULT = AVAILABLE_LOCALES.find((locale) => locale !== "en") ?? "en";

/**
 * The message's subject and its text and HTML parts as a reader sees them: parsed by mailparser,
 * which decodes whatever encoding nodemailer chose (quoted-printable or base64 bodies, Q or B
 * encoded words in the subject).
 */
async function readable(mail: ReceivedMail): Promise<string> {
  const parsed = await simpleParser(mail.raw);
  return [parsed.subject ?? "", parsed.text ?? "", typeof parsed.html === "string" ? parsed.html : ""].join("\n");
}

forEachDatabase(
  "emails in the recipient's language",
  (server) => {
    test(`a new account's verification email is in the server's default language (${DEFAULT}), whatever the page's`, async () => {
      const registered = await server().json("POST", "/api/v1/auth/register", { username: "anna", email: "anna@example.org", password: PASSWORD }, { "accept-language": "en" });
      expect(registered.status).toBe(201);
      expect(registered.body.locale).toBeNull();
      const text = await readable(await inbox.next());
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
