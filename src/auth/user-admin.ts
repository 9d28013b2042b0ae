/**
 * User administration (admin only, enforced by the routes): list, create, read, update, delete.
 * A PUT with `password` is the admin password reset (there is no self-service reset): the
 * account may be compromised, so it ends every credential of the user, sessions, tokens, API
 * keys and the KOReader sync key (./password-change.ts). The last active admin can be neither
 * deleted, demoted nor disabled. Changes that take something away (a reset, a demotion,
 * disabling, deleting) are announced to every process once committed.
 */
import type { Database, Repositories, Role, UserChanges, UserRecord } from "../db";
import { isUuid } from "../db";
import { DomainError, invalidFields, notFound } from "../errors";
import type { CredentialRevocations } from "./credential-revocation";
import type { PasswordChanges } from "./password-change";
import type { PasswordHasher } from "./passwords";
import type { RefreshTokens } from "./refresh-tokens";
import { isEmailAddress, type UserService } from "./users";

export interface NewUserByAdmin {
  username: string;
  email: string | null;
  password: string;
  role: Role;
}

export interface UserUpdate {
  password?: string;
  email?: string | null;
  role?: Role;
  disabled?: boolean;
  /** Refused when true: a reset ends every credential (only the user's own change may keep keys). */
  keepApiKeys?: boolean;
}

export class UserAdministration {
  constructor(
    private readonly database: Database,
    private readonly repositories: Repositories,
    private readonly users: UserService,
    private readonly passwords: PasswordHasher,
    private readonly refreshTokens: RefreshTokens,
    private readonly passwordChanges: PasswordChanges,
    private readonly revocations: CredentialRevocations,
  ) {}

  list(offset: number, limit: number): Promise<{ rows: UserRecord[]; total: number }> {
    return this.repositories.users.list(offset, limit);
  }

  /** Accounts an admin creates need no email verification. */
  create(user: NewUserByAdmin): Promise<UserRecord> {
    return this.users.createAccount({ ...user, emailVerified: true });
  }

  async get(id: string): Promise<UserRecord> {
    const user = isUuid(id) ? await this.repositories.users.findById(id) : undefined;
    if (!user) throw notFound("user");
    return user;
  }

  async update(id: string, update: UserUpdate): Promise<UserRecord> {
    if (update.keepApiKeys) {
      throw invalidFields("UnprocessableEntity", {
        keepApiKeys: "an admin's password reset ends every credential of the user; only PUT /api/v1/auth/me/password can keep API keys",
      });
    }
    const changes: UserChanges = {};
    if (update.password !== undefined) changes.passwordHash = await this.passwords.hash(update.password);
    if (update.role !== undefined) changes.role = update.role;
    if (update.disabled !== undefined) changes.disabled = update.disabled;
    if (update.email !== undefined) {
      if (update.email !== null && !isEmailAddress(update.email)) throw invalidFields("BadRequest", { email: "must be an email address" });
      changes.email = update.email;
    }
    const updated = await this.database.transaction(async () => {
      const user = await this.get(id);
      if (changes.role === "user" || changes.disabled === true) await this.assertNotLastAdmin(user);
      const holder = changes.email ? await this.repositories.users.findByEmail(changes.email) : undefined;
      if (holder && holder.id !== id) {
        throw new DomainError("Conflict", "a user with this email already exists", { fields: { email: "taken" } });
      }
      const passwordReset = changes.passwordHash !== undefined;
      const changed = (await this.repositories.users.update(id, changes, { endSessions: passwordReset })) ?? user;
      if (passwordReset) await this.passwordChanges.endCredentialsOf(id, { keepApiKeys: false });
      return changed;
    });
    if (changes.disabled) await this.refreshTokens.revokeAllOfUser(id);
    if (changes.passwordHash !== undefined || changes.role === "user" || changes.disabled) this.revocations.announce(id);
    return updated;
  }

  async delete(id: string): Promise<void> {
    await this.database.transaction(async () => {
      await this.assertNotLastAdmin(await this.get(id));
      await this.repositories.users.delete(id);
    });
    this.revocations.announce(id);
  }

  private async assertNotLastAdmin(user: UserRecord): Promise<void> {
    if (user.role === "admin" && !user.disabled && (await this.repositories.users.countAdmins(user.id)) === 0) {
      throw new DomainError("Conflict", "this is the last admin: create or promote another admin first");
    }
  }
}
