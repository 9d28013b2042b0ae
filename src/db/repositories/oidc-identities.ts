import { and, eq } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";

export interface OidcIdentityRecord {
  id: string;
  userId: string;
  provider: string;
  subject: string;
  createdAt: Date;
}

export class OidcIdentityRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  private get t() {
    return this.database.tables.oidcIdentities;
  }

  async find(provider: string, subject: string): Promise<OidcIdentityRecord | undefined> {
    const [row] = await this.db
      .select()
      .from(this.t)
      .where(and(eq(this.t.provider, provider), eq(this.t.subject, subject)));
    return row;
  }

  async link(userId: string, provider: string, subject: string): Promise<OidcIdentityRecord> {
    const record: OidcIdentityRecord = { id: newId(), userId, provider, subject, createdAt: new Date() };
    await this.database.transaction(async () => {
      await this.db.insert(this.t).values(record);
    });
    return record;
  }
}
