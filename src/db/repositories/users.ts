import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";
import { RecentReads } from "./recent-reads";

export type Role = "admin" | "user";

export interface UserRecord {
  id: string;
  username: string;
  email: string | null;
  passwordHash: string | null;
  role: Role;
  emailVerified: boolean;
  disabled: boolean;
  /** Raised by every password change; session credentials carry the version they were issued under. */
  tokenVersion: number;
  /** The interface language the user chose (src/i18n); null = the browser's, else the server's default. */
  locale: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUser {
  username: string;
  email: string | null;
  passwordHash: string | null;
  role: Role;
  emailVerified: boolean;
}

export type UserChanges = Partial<Pick<UserRecord, "email" | "passwordHash" | "role" | "emailVerified" | "disabled" | "locale">>;

export class UserRepository {
  /** Accounts recently read to authenticate a request, by id. */
  private readonly recentForRequest: RecentReads<UserRecord | undefined>;

  constructor(private readonly database: Database) {
    this.recentForRequest = new RecentReads(database);
  }

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.users;
  }

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(this.t);
    return row?.n ?? 0;
  }

  async countAdmins(excludingId?: string): Promise<number> {
    const t = this.t;
    const condition = excludingId ? and(eq(t.role, "admin"), ne(t.id, excludingId)) : eq(t.role, "admin");
    const [row] = await this.db.select({ n: count() }).from(t).where(and(condition, eq(t.disabled, false)));
    return row?.n ?? 0;
  }

  /**
   * The new account, or undefined when its username or email is taken regardless of case
   * (decided by the unique indexes, so two concurrent sign-ups cannot both succeed).
   */
  async create(user: NewUser): Promise<UserRecord | undefined> {
    const now = new Date();
    const record: UserRecord = { id: newId(), ...user, disabled: false, tokenVersion: 0, locale: null, createdAt: now, updatedAt: now };
    const inserted = await this.database.transaction(() =>
      this.db.insert(this.t).values(record).onConflictDoNothing().returning({ id: this.t.id }),
    );
    return inserted.length > 0 ? record : undefined;
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(eq(this.t.id, id));
    return row;
  }

  /**
   * The account behind a request's credentials. A reader sends a request per page, so the row
   * read for one is reused (./recent-reads.ts) until a write of this process ends, for at most
   * two seconds: disabling, demoting, deleting or a password change takes effect immediately
   * (one made by another process as soon as its announcement arrives: `forgetRecentReads`;
   * a change nobody announced, when those seconds pass).
   */
  findForRequest(id: string): Promise<UserRecord | undefined> {
    return this.recentForRequest.get(id, () => this.findById(id));
  }

  /** Another process changed an account: no account row read so far is reused. */
  forgetRecentReads(): void {
    this.recentForRequest.forgetAll();
  }

  /**
   * Usernames and emails match regardless of case, through lower() on both sides: the same
   * expression as the unique indexes, which these lookups use. (SQLite's lower() folds ASCII
   * letters only; PostgreSQL's follows the database's locale.)
   */
  async findByUsername(username: string): Promise<UserRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(eq(sql`lower(${this.t.username})`, sql`lower(${username})`));
    return row;
  }

  /** Every account's id and username (new names are compared with all of them: src/auth/usernames.ts). */
  async allUsernames(): Promise<{ id: string; username: string }[]> {
    return this.db.select({ id: this.t.id, username: this.t.username }).from(this.t).orderBy(asc(this.t.createdAt));
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const [row] = await this.db.select().from(this.t).where(eq(sql`lower(${this.t.email})`, sql`lower(${email})`));
    return row;
  }

  async list(offset: number, limit: number): Promise<{ rows: UserRecord[]; total: number }> {
    const rows = await this.db.select().from(this.t).orderBy(asc(this.t.username)).limit(limit).offset(offset);
    return { rows, total: await this.count() };
  }

  /** With `endSessions`, the token version is raised in the same write (a password change). */
  async update(id: string, changes: UserChanges, options: { endSessions?: boolean } = {}): Promise<UserRecord | undefined> {
    return this.database.transaction(async () => {
      const [row] = await this.db
        .update(this.t)
        .set({ ...changes, ...(options.endSessions && { tokenVersion: sql`${this.t.tokenVersion} + 1` }), updatedAt: new Date() })
        .where(eq(this.t.id, id))
        .returning();
      return row;
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.database.transaction(async () => {
      const removed = await this.db.delete(this.t).where(eq(this.t.id, id)).returning({ id: this.t.id });
      return removed.length > 0;
    });
  }
}
