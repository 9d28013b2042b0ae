/**
 * Who may see what: the one place every surface (API, OPDS, web) asks. Admins see everything;
 * other users see the series their sharing-tag grants allow (src/db/repositories/access.ts), and
 * nothing of the server's internals. Hidden content behaves as if it did not exist.
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
   * Whether the user may see the server's internals: file-system paths (a library's `path`, a
   * book's `filePath`), scan counters and failure reasons (library-wide, so they would count
   * hidden files), and scan and thumbnail metrics. Admins only.
   */
  seesServerInternals(user: Pick<UserRecord, "role">): boolean {
    return user.role === "admin";
  }

  /**
   * Whose grants filter what this user sees, for the prepared hot-path queries that apply the
   * rule inside SQL (BookQueryRepository.fileOf): the user's id, or null for an admin.
   */
  viewerFilter(user: Pick<UserRecord, "id" | "role">): string | null {
    return user.role === "admin" ? null : user.id;
  }
}
