/**
 * User administration (admin only, enforced by the routes): list, create, read, update, delete.
 * A PUT with `password` is the admin password reset (there is no self-service reset); it also
 * ends the user's sessions. The last active admin can be neither deleted, demoted nor disabled.
 */
import type { Database, Repositories, Role, UserChanges, UserRecord } from "../db";
import { isUuid } from "../db";
import { DomainError, invalidFields, notFound } from "../errors";
import { assertPasswordAcceptable, type PasswordHasher } from "./passwords";
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
}

export class UserAdministration {
  constructor(
    private readonly database: Database,
    private readonly repositories: Repositories,
    private readonly users: UserService,
    private readonly passwords: PasswordHasher,
    private readonly refreshTokens: RefreshTokens,
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
      if (changes.email && changes.email !== user.email && (await this.repositories.users.findByEmail(changes.email))) {
        throw new DomainError("Conflict", "a user with this email already exists", { fields: { email: "taken" } });
      }
      return (await this.repositories.users.update(id, changes)) ?? user;
    });
    if (changes.passwordHash || changes.disabled) await this.refreshTokens.revokeAllOfUser(id);
    return updated;
  }

  /** The admin password reset: the password must be acceptable; every session of the user ends. */
  resetPassword(id: string, password: string): Promise<UserRecord> {
    assertPasswordAcceptable(password);
    return this.update(id, { password });
  }

  /**
   * A user changing their own password: the current one must match (an account made by single
   * sign-on has none to change). Every session of the account ends, as after a reset.
   */
  async changeOwnPassword(user: UserRecord, currentPassword: string, newPassword: string): Promise<UserRecord> {
    if (!user.passwordHash) throw new DomainError("Conflict", "this account signs in through single sign-on and has no password here");
    if (!(await this.passwords.verify(user.passwordHash, currentPassword))) {
      throw invalidFields("UnprocessableEntity", { currentPassword: "is not the account's password" });
    }
    return this.resetPassword(user.id, newPassword);
  }

  async delete(id: string): Promise<void> {
    await this.database.transaction(async () => {
      await this.assertNotLastAdmin(await this.get(id));
      await this.repositories.users.delete(id);
    });
  }

  private async assertNotLastAdmin(user: UserRecord): Promise<void> {
    if (user.role === "admin" && !user.disabled && (await this.repositories.users.countAdmins(user.id)) === 0) {
      throw new DomainError("Conflict", "this is the last admin: create or promote another admin first");
    }
  }
}
