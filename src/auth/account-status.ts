/**
 * Whether an account may sign in at all, whatever the credential: the same rule for password
 * login, HTTP Basic, API keys, access tokens, refresh and OIDC.
 */
import type { UserRecord } from "../db";
import { DomainError } from "../errors";

export function assertMaySignIn(user: UserRecord, emailConfirmationRequired: boolean): void {
  if (user.disabled) throw new DomainError("Forbidden", "this account is disabled", undefined, "AccountDisabled");
  if (emailConfirmationRequired && !user.emailVerified) {
    throw new DomainError(
      "Forbidden",
      "the email address of this account is not verified yet; follow the link in the verification email",
      undefined,
      "EmailNotVerified",
    );
  }
}
