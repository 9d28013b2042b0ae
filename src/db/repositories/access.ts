/**
 * The sharing-tag visibility rule as a query condition on `series.id`, for one user:
 * no grants -> everything; any allow grant -> only series carrying an allowed tag;
 * deny grants hide series carrying a denied tag; deny beats allow. (Admins are never filtered:
 * the caller decides that, see src/access.) The rule is written once, against the user's grants
 * inside the query (`visibleUnderGrantsOf`).
 */
import { and, eq, exists, not, or, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Database } from "../database";

export class AccessRepository {
  constructor(private readonly database: Database) {}

  /** The rule for `userId`, or undefined when the user holds no grant (sees everything): lists stay plain queries. */
  async seriesVisibleTo(userId: string): Promise<SQL | undefined> {
    const { userSharingGrants: grants } = this.database.tables;
    const [anyGrant] = await this.database.handle().select({ one: sql`1` }).from(grants).where(eq(grants.userId, userId)).limit(1);
    return anyGrant ? this.visibleUnderGrantsOf(userId) : undefined;
  }

  /**
   * The rule with the user id as the placeholder `viewerId`: one statement for every user, so
   * that a hot path (serving a page) can prepare it once instead of reading the grants first
   * and building a query per request.
   */
  seriesVisibleToViewer(): SQL {
    return this.visibleUnderGrantsOf(sql.placeholder("viewerId"));
  }

  private visibleUnderGrantsOf(userId: string | Placeholder): SQL {
    const { userSharingGrants: grants, seriesSharingTags, series } = this.database.tables;
    const db = this.database.handle();
    const viewer = eq(grants.userId, userId);
    const grantOnSeries = (mode: "allow" | "deny") =>
      exists(
        db
          .select({ one: sql`1` })
          .from(grants)
          .innerJoin(seriesSharingTags, eq(seriesSharingTags.sharingTagId, grants.sharingTagId))
          .where(and(viewer, eq(grants.accessMode, mode), eq(seriesSharingTags.seriesId, series.id))),
      );
    const anyAllowGrant = exists(db.select({ one: sql`1` }).from(grants).where(and(viewer, eq(grants.accessMode, "allow"))));
    return and(not(grantOnSeries("deny")), or(not(anyAllowGrant), grantOnSeries("allow")))!;
  }
}
