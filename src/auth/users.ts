/**
 * Accounts: creating users (the first admin at setup, from the CLI, by an admin) and the
 * public shape of a user. Authentication flows live beside this file.
 */
import type { Repositories, Role, UserRecord } from "../db";
import { DomainError, invalidFields, notFound } from "../errors";
import { isAvailableLocale } from "../i18n/catalogs";
import { assertPasswordAcceptable, type PasswordHasher } from "./passwords";
import { normalizeUsername, usernameProblem, usernamesLookAlike } from "./usernames";

export interface UserDto {
  id: string;
  username: string;
  email: string | null;
  role: Role;
  emailVerified: boolean;
  disabled: boolean;
  /** The web interface's and the emails' language; null = the browser's, else the server's default. */
  locale: string | null;
  createdAt: string;
}

export function toUserDto(user: UserRecord): UserDto {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    role: user.role,
    emailVerified: user.emailVerified,
    disabled: user.disabled,
    locale: user.locale,
    createdAt: user.createdAt.toISOString(),
  };
}

export interface NewAccount {
  username: string;
  email: string | null;
  password: string;
  role: Role;
  emailVerified: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const isEmailAddress = (value: string): boolean => EMAIL.test(value);

/** Usernames name the same account regardless of case (the database looks them up with lower()) and of Unicode compatibility forms (NFKC). */
export const sameUsername = (a: string, b: string): boolean => normalizeUsername(a).toLowerCase() === normalizeUsername(b).toLowerCase();

/**
 * The account a username typed at sign-in names: the name in NFKC (./usernames.ts), else, for an
 * account named before names were normalized, the name as typed.
 */
export async function accountNamed(repositories: Pick<Repositories, "users">, typed: string): Promise<UserRecord | undefined> {
  const normalized = normalizeUsername(typed);
  return (await repositories.users.findByUsername(normalized)) ?? (normalized === typed ? undefined : repositories.users.findByUsername(typed));
}

export class UserService {
  /** Once a user exists, setup is over for good (the last admin cannot be deleted). */
  private setupComplete = false;

  constructor(
    private readonly repositories: Repositories,
    private readonly passwords: PasswordHasher,
    /** Told once the first admin exists (the data folder records it: ../operations/installation.ts). */
    private readonly firstAdminCreated: () => void = () => undefined,
  ) {}

  /** Sets the language a user chose for the web interface and emails (null: follow the browser). */
  async setLocale(user: UserRecord, locale: string | null): Promise<UserRecord> {
    if (locale !== null && !isAvailableLocale(locale)) throw invalidFields("UnprocessableEntity", { locale: "is not a language with a catalog" });
    const updated = await this.repositories.users.update(user.id, { locale });
    if (!updated) throw notFound("user");
    return updated;
  }

  /** Whether no user exists yet (the web interface then shows the first-run setup page). */
  async setupNeeded(): Promise<boolean> {
    if (!this.setupComplete) this.setupComplete = (await this.repositories.users.count()) > 0;
    return !this.setupComplete;
  }

  /** A new account; its username is taken in NFKC and must pass src/auth/usernames.ts (400, or 409 when taken or alike). */
  async createAccount(requested: NewAccount): Promise<UserRecord> {
    const account = { ...requested, username: normalizeUsername(requested.username) };
    const fields: Record<string, string> = {};
    const usernameIssue = usernameProblem(account.username);
    if (usernameIssue) fields.username = usernameIssue;
    if (account.email !== null && !isEmailAddress(account.email)) fields.email = "must be an email address";
    if (Object.keys(fields).length > 0) throw invalidFields("BadRequest", fields);
    assertPasswordAcceptable(account.password);
    // Conflicts first: a taken name or address must not cost an Argon2 hash.
    await this.assertUnused(account);
    const passwordHash = await this.passwords.hash(account.password);
    const created = await this.repositories.users.create({
      username: account.username,
      email: account.email,
      passwordHash,
      role: account.role,
      emailVerified: account.emailVerified,
    });
    if (created) return created;
    // Taken in the meantime, by a concurrent request: say which.
    await this.assertUnused(account);
    throw new DomainError("Conflict", "a user with this username or email already exists");
  }

  /** 409 naming the field when the username or email is taken (regardless of case), or the username looks like a taken one. */
  private async assertUnused({ username, email }: Pick<NewAccount, "username" | "email">): Promise<void> {
    if (await this.repositories.users.findByUsername(username)) {
      throw new DomainError("Conflict", "a user with this username already exists", { fields: { username: "taken" } });
    }
    const alike = (await this.repositories.users.allUsernames()).find((existing) => usernamesLookAlike(existing.username, username));
    if (alike) {
      throw new DomainError("Conflict", "the username looks like an existing user's name (Unicode confusables)", { fields: { username: "looks like an existing username" } });
    }
    if (email && (await this.repositories.users.findByEmail(email))) {
      throw new DomainError("Conflict", "a user with this email already exists", { fields: { email: "taken" } });
    }
  }

  /** The first admin, only while no user exists (POST /api/v1/setup, `longbox user create`). */
  async createFirstAdmin(username: string, email: string | null, password: string): Promise<UserRecord> {
    if ((await this.repositories.users.count()) > 0) {
      throw new DomainError("Conflict", "setup is already complete: a user exists");
    }
    const admin = await this.createAccount({ username, email, password, role: "admin", emailVerified: true });
    this.firstAdminCreated();
    return admin;
  }
}
