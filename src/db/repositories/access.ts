/**
 * The sharing-tag visibility rule as a query condition on `series.id`, for one user:
 * no grants -> everything; any allow grant -> only series carrying an allowed tag;
 * deny grants hide series carrying a denied tag; deny beats allow. (Admins are never filtered:
 * the caller decides that, see src/access.)
 */
import { and, eq, exists, inArray, not, type SQL } from "drizzle-orm";
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
}
