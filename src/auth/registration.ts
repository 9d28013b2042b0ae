/**
 * Self-service registration and email verification (account verification state table):
 *   user registers -> unverified, and a verification email with a link is sent
 *   link followed within email.verification_token_expiry_hours -> active
 * The link token is 32 random bytes (base64url); only its SHA-256 is stored, and it is single
 * use. Mail goes out in the background: the HTTP answer never waits for (or reveals) delivery.
 */
import type { Config } from "../config/schema";
import { isAvailableLocale } from "../i18n/catalogs";
import { translatorFor } from "../i18n/translator";
import type { Repositories, UserRecord } from "../db";
import { DomainError, invalidFields } from "../errors";
import type { Logger } from "../logging/logger";
import type { Mailer } from "./mailer";
import { randomBase64url, sha256Hex } from "./token-digest";
import type { UserService } from "./users";

export interface Registration {
  username: string;
  email: string | null;
  password: string;
}

export const VERIFY_EMAIL_PATH = "/api/v1/auth/verify-email";
const HOUR_MS = 3600 * 1000;
const invalidLink = () => new DomainError("BadRequest", "the verification link is invalid, expired or already used");

/** At most one resent verification mail per account in this interval. */
const RESEND_INTERVAL_MS = 60_000;

export class RegistrationService {
  private readonly resentAt = new Map<string, number>();

  constructor(
    private readonly config: Config,
    private readonly repositories: Repositories,
    private readonly users: UserService,
    private readonly mailer: Mailer,
    private readonly log: Logger,
  ) {}

  private get confirmationRequired(): boolean {
    return this.config.auth.email_confirmation_required;
  }

  /**
   * Creates a user account. `requestOrigin` is where the request came in, used for the link
   * only when neither email.verification_url_base nor application.base_url is configured.
   */
  async register(registration: Registration, requestOrigin: string): Promise<UserRecord> {
    if (!this.config.auth.registration_enabled) {
      throw new DomainError("Forbidden", "self-service registration is disabled on this server");
    }
    if (this.confirmationRequired && !registration.email) {
      throw invalidFields("BadRequest", { email: "is required: accounts must verify their email address" });
    }
    const user = await this.users.createAccount({ ...registration, role: "user", emailVerified: !this.confirmationRequired });
    if (this.confirmationRequired) this.sendVerificationInBackground(user, requestOrigin);
    return user;
  }

  /** Follows a verification link: marks the account verified, once. */
  async verifyEmail(token: string): Promise<UserRecord> {
    const record = await this.repositories.emailVerificationTokens.findByHash(sha256Hex(token));
    if (!record || record.usedAt || record.expiresAt <= new Date()) throw invalidLink();
    if (!(await this.repositories.emailVerificationTokens.markUsed(record.id, new Date()))) throw invalidLink();
    const user = await this.repositories.users.update(record.userId, { emailVerified: true });
    if (!user) throw invalidLink();
    return user;
  }

  /** Sends a new link when the address belongs to an unverified account; silent in every case. */
  async resendVerification(email: string, requestOrigin: string): Promise<void> {
    if (!this.confirmationRequired) return;
    const user = await this.repositories.users.findByEmail(email);
    if (!user || user.emailVerified || user.disabled) return;
    // The endpoint is open: without this, anyone could make the server mail an address again
    // and again. The answer stays 202 either way (no account discovery).
    const lastSent = this.resentAt.get(user.id);
    if (lastSent !== undefined && Date.now() - lastSent < RESEND_INTERVAL_MS) return;
    if (this.resentAt.size >= 10_000) this.resentAt.clear();
    this.resentAt.set(user.id, Date.now());
    this.sendVerificationInBackground(user, requestOrigin);
  }

  private sendVerificationInBackground(user: UserRecord, requestOrigin: string): void {
    this.sendVerification(user, requestOrigin).catch((error: unknown) => {
      this.log.error("the verification email could not be sent", { userId: user.id, error: error as Error });
    });
  }

  private async sendVerification(user: UserRecord, requestOrigin: string): Promise<void> {
    if (!user.email) return;
    const token = randomBase64url(32);
    const hours = this.config.email.verification_token_expiry_hours;
    await this.repositories.emailVerificationTokens.replaceForUser(user.id, sha256Hex(token), new Date(Date.now() + hours * HOUR_MS));
    const base = (this.config.email.verification_url_base || this.config.application.base_url || requestOrigin).replace(/\/+$/, "");
    const link = `${base}${VERIFY_EMAIL_PATH}?token=${token}`;
    // In the recipient's language, else the server's default (a new account has chosen none yet).
    const { t } = translatorFor(user.locale && isAvailableLocale(user.locale) ? user.locale : this.config.application.default_locale);
    const [greeting, request, ignore] = [t("email.verify.greeting", { username: user.username }), t("email.verify.request", { hours }), t("email.verify.ignore")];
    await this.mailer.send({
      to: user.email,
      subject: t("email.verify.subject"),
      text: `${greeting}\n\n${request}\n\n${link}\n\n${ignore}\n`,
      html: `<p>${escapeHtml(greeting)}</p><p>${escapeHtml(request)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>${escapeHtml(ignore)}</p>`,
    });
    this.log.info("verification email sent", { userId: user.id });
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
