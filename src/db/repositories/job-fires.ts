import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../database";

const KEPT_MS = 24 * 3600_000;

/** Fires of scheduled jobs, so that one fire runs once across processes and instances. */
export class JobFireRepository {
  constructor(private readonly database: Database) {}

  /**
   * Records the fire of `job` at `fireAt`: true for the first caller, false for every later one
   * (the primary key decides, on both databases). Forgets fires older than a day.
   */
  async claim(job: string, fireAt: Date): Promise<boolean> {
    const t = this.database.tables.jobFires;
    return this.database.transaction(async () => {
      const db = this.database.handle();
      await db.delete(t).where(and(eq(t.job, job), lt(t.fireAt, new Date(fireAt.getTime() - KEPT_MS))));
      const inserted = await db.insert(t).values({ job, fireAt }).onConflictDoNothing().returning({ job: t.job });
      return inserted.length > 0;
    });
  }
}
