/**
 * Sharing tags, the tags carried by series, and users' grants for tags. The rule that turns
 * grants into visibility lives in ./access.ts; this repository only stores the facts.
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../database";
import { newId } from "../ids";

export type AccessMode = "allow" | "deny";

export interface SharingTagRecord {
  id: string;
  name: string;
  description: string | null;
  /** Series carrying the tag. */
  seriesCount: number;
  /** Users holding a grant (allow or deny) for the tag. */
  userCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface SharingTagChanges {
  name?: string;
  description?: string | null;
}

export interface SharingGrantRecord {
  sharingTagId: string;
  sharingTagName: string;
  accessMode: AccessMode;
}

export class SharingTagRepository {
  constructor(private readonly database: Database) {}

  private get db() {
    return this.database.handle();
  }

  /** The tag columns with both counts as correlated subqueries, so a page is one query. */
  private withCounts() {
    const { sharingTags, seriesSharingTags, userSharingGrants } = this.database.tables;
    const countOf = (table: typeof seriesSharingTags | typeof userSharingGrants) =>
      sql<number>`(select count(*) from ${table} where ${table.sharingTagId} = ${sharingTags.id})`.mapWith(Number);
    return this.db
      .select({
        id: sharingTags.id,
        name: sharingTags.name,
        description: sharingTags.description,
        seriesCount: countOf(seriesSharingTags),
        userCount: countOf(userSharingGrants),
        createdAt: sharingTags.createdAt,
        updatedAt: sharingTags.updatedAt,
      })
      .from(sharingTags);
  }

  async list(offset: number, limit: number): Promise<{ rows: SharingTagRecord[]; total: number }> {
    const t = this.database.tables.sharingTags;
    const rows = await this.withCounts().orderBy(asc(t.name), asc(t.id)).limit(limit).offset(offset);
    const [totalRow] = await this.db.select({ n: count() }).from(t);
    return { rows, total: totalRow?.n ?? 0 };
  }

  async findById(id: string): Promise<SharingTagRecord | undefined> {
    const [row] = await this.withCounts().where(eq(this.database.tables.sharingTags.id, id));
    return row;
  }

  async findByName(name: string): Promise<SharingTagRecord | undefined> {
    const [row] = await this.withCounts().where(eq(this.database.tables.sharingTags.name, name));
    return row;
  }

  /** The new tag, or undefined when the name is taken (decided by the unique index, so no race). */
  async create(name: string, description: string | null): Promise<SharingTagRecord | undefined> {
    const now = new Date();
    const record = { id: newId(), name, description, createdAt: now, updatedAt: now };
    const inserted = await this.database.transaction(() =>
      this.db.insert(this.database.tables.sharingTags).values(record).onConflictDoNothing().returning({ id: this.database.tables.sharingTags.id }),
    );
    return inserted.length > 0 ? { ...record, seriesCount: 0, userCount: 0 } : undefined;
  }

  async update(id: string, changes: SharingTagChanges): Promise<boolean> {
    const t = this.database.tables.sharingTags;
    return this.database.transaction(async () => {
      const updated = await this.db.update(t).set({ ...changes, updatedAt: new Date() }).where(eq(t.id, id)).returning({ id: t.id });
      return updated.length > 0;
    });
  }

  /** Removes the tag and, by cascade, its series links and grants. */
  async delete(id: string): Promise<boolean> {
    const t = this.database.tables.sharingTags;
    return this.database.transaction(async () => {
      const removed = await this.db.delete(t).where(eq(t.id, id)).returning({ id: t.id });
      return removed.length > 0;
    });
  }

  /** Those of `ids` that name an existing tag. */
  async existingIds(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const t = this.database.tables.sharingTags;
    const rows = await this.db.select({ id: t.id }).from(t).where(inArray(t.id, ids));
    return rows.map((row) => row.id);
  }

  async seriesExists(seriesId: string): Promise<boolean> {
    const s = this.database.tables.series;
    const [row] = await this.db.select({ id: s.id }).from(s).where(eq(s.id, seriesId));
    return row !== undefined;
  }

  /** The tags of one series, by name. */
  async tagsOfSeries(seriesId: string): Promise<{ id: string; name: string }[]> {
    const { sharingTags, seriesSharingTags } = this.database.tables;
    return this.db
      .select({ id: sharingTags.id, name: sharingTags.name })
      .from(seriesSharingTags)
      .innerJoin(sharingTags, eq(sharingTags.id, seriesSharingTags.sharingTagId))
      .where(eq(seriesSharingTags.seriesId, seriesId))
      .orderBy(asc(sharingTags.name), asc(sharingTags.id));
  }

  /** Makes `tagIds` the complete set of the series' tags. */
  async replaceTagsOfSeries(seriesId: string, tagIds: string[]): Promise<void> {
    const t = this.database.tables.seriesSharingTags;
    await this.database.transaction(async () => {
      await this.db.delete(t).where(eq(t.seriesId, seriesId));
      if (tagIds.length > 0) await this.db.insert(t).values(tagIds.map((sharingTagId) => ({ seriesId, sharingTagId })));
    });
  }

  async grantsOf(userId: string): Promise<SharingGrantRecord[]> {
    const { sharingTags, userSharingGrants } = this.database.tables;
    return this.db
      .select({ sharingTagId: userSharingGrants.sharingTagId, sharingTagName: sharingTags.name, accessMode: userSharingGrants.accessMode })
      .from(userSharingGrants)
      .innerJoin(sharingTags, eq(sharingTags.id, userSharingGrants.sharingTagId))
      .where(eq(userSharingGrants.userId, userId))
      .orderBy(asc(sharingTags.name), asc(sharingTags.id));
  }

  /** Creates the user's grant for the tag or changes its mode. */
  async upsertGrant(userId: string, sharingTagId: string, accessMode: AccessMode): Promise<void> {
    const t = this.database.tables.userSharingGrants;
    await this.database.transaction(async () => {
      await this.db
        .insert(t)
        .values({ userId, sharingTagId, accessMode })
        .onConflictDoUpdate({ target: [t.userId, t.sharingTagId], set: { accessMode } });
    });
  }

  async deleteGrant(userId: string, sharingTagId: string): Promise<boolean> {
    const t = this.database.tables.userSharingGrants;
    return this.database.transaction(async () => {
      const removed = await this.db
        .delete(t)
        .where(and(eq(t.userId, userId), eq(t.sharingTagId, sharingTagId)))
        .returning({ userId: t.userId });
      return removed.length > 0;
    });
  }
}
