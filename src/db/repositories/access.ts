/**
 * The sharing-tag visibility rule as a query condition on `series.id`, for one user:
 * no grants -> everything; any allow grant -> only series carrying an allowed tag;
 * deny grants hide series carrying a denied tag; deny beats allow. (Admins are never filtered:
 * the caller decides that, see src/access.)
 */
import { and, eq, exists, inArray, not, or, sql, type SQL } from "drizzle-orm";
import type { Database } from "../database";

export class AccessRepository {
  constructor(private readonly database: Database) {}

  async seriesVisibleTo(userId: string): Promise<SQL | undefined> {
    const { userSharingGrants, seriesSharingTags, series } = this.database.tables;
    const db = this.database.handle();
    const grants = await db
      .select({ tagId: userSharingGrants.sharingTagId, mode: userSharingGrants.accessMode })
      .from(userSharingGrants)
      .where(eq(userSharingGrants.userId, userId));
    if (grants.length === 0) return undefined;
    const tagged = (tagIds: string[]) =>
      exists(
        db
          .select({ seriesId: seriesSharingTags.seriesId })
          .from(seriesSharingTags)
          .where(and(eq(seriesSharingTags.seriesId, series.id), inArray(seriesSharingTags.sharingTagId, tagIds))),
      );
    const allowed = grants.filter((grant) => grant.mode === "allow").map((grant) => grant.tagId);
    const denied = grants.filter((grant) => grant.mode === "deny").map((grant) => grant.tagId);
    return and(allowed.length > 0 ? tagged(allowed) : undefined, denied.length > 0 ? not(tagged(denied)) : undefined);
  }

  /**
   * The same rule as `seriesVisibleTo`, written against the user's grants inside the query,
   * with the user id as the placeholder `viewerId`: one statement for every user, so that a
   * hot path (serving a page) can prepare it once instead of reading the grants first and
   * building a query per request.
   */
  seriesVisibleToViewer(): SQL {
    const { userSharingGrants: grants, seriesSharingTags, series } = this.database.tables;
    const db = this.database.handle();
    const viewer = eq(grants.userId, sql.placeholder("viewerId"));
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
