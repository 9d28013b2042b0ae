/**
 * Who may see which series: the one place every surface (API, OPDS, web) asks. Admins see
 * everything; other users see what their sharing-tag grants allow (src/db/repositories/access.ts).
 * Hidden content behaves as if it did not exist.
 */
import type { QueryCondition, Repositories, UserRecord } from "../db";

export type SeriesVisibility = QueryCondition | undefined;

export class AccessService {
  constructor(private readonly repositories: Repositories) {}

  /** A condition on the series for queries, or undefined when the user sees everything. */
  async seriesVisibility(user: Pick<UserRecord, "id" | "role">): Promise<SeriesVisibility> {
    if (user.role === "admin") return undefined;
    return this.repositories.access.seriesVisibleTo(user.id);
  }

  /**
   * Whose grants filter what this user sees, for the prepared hot-path queries that apply the
   * rule inside SQL (BookQueryRepository.fileOf): the user's id, or null for an admin.
   */
  viewerFilter(user: Pick<UserRecord, "id" | "role">): string | null {
    return user.role === "admin" ? null : user.id;
  }
}
