/**
 * Outgoing mail over SMTP with nodemailer, configured by the `email.*` keys. The transport is
 * created on first use, so a server without SMTP settings starts fine and only fails (with a
 * clear message) when it actually has to send something.
 */
import { createTransport, type Transporter } from "nodemailer";
import type { Config } from "../config/schema";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export class SmtpMailer implements Mailer {
  private transport: Transporter | undefined;

  constructor(private readonly settings: Config["email"]) {}

  async send(message: MailMessage): Promise<void> {
    const settings = this.settings;
    if (!settings.smtp_host) throw new Error("cannot send mail: email.smtp_host is not configured");
    this.transport ??= createTransport({
      host: settings.smtp_host,
      port: settings.smtp_port,
      secure: settings.smtp_secure,
      auth: settings.smtp_username ? { user: settings.smtp_username, pass: settings.smtp_password } : undefined,
    });
    const address = settings.smtp_from_address || settings.smtp_username || `longbox@${settings.smtp_host}`;
    await this.transport.sendMail({ from: { name: settings.smtp_from_name, address }, ...message });
  }
}
