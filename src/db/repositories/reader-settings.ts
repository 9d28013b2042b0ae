/**
 * The web readers' settings kept per user (reader_defaults) and per user and series
 * (series_reader_settings). Each row holds the whole settings object. A change is applied to
 * the stored object inside one transaction, the row locked (created empty first if missing), so
 * two changes sent at once (a font and a theme chosen in quick succession) both survive.
 */
import { and, eq } from "drizzle-orm";
import type { Database } from "../database";
import type { ReaderSettings } from "../schema/types";
import { lockingRead } from "./row-lock";

/** Makes the settings to store from the stored ones. */
export type SettingsUpdate = (stored: ReaderSettings) => ReaderSettings;

export class ReaderSettingsRepository {
  constructor(private readonly database: Database) {}

  async defaults(userId: string): Promise<ReaderSettings> {
    const t = this.database.tables.readerDefaults;
    const [row] = await this.database.handle().select({ settings: t.settings }).from(t).where(eq(t.userId, userId));
    return row?.settings ?? {};
  }

  changeDefaults(userId: string, update: SettingsUpdate): Promise<ReaderSettings> {
    const t = this.database.tables.readerDefaults;
    const mine = eq(t.userId, userId);
    return this.database.transaction(async () => {
      const db = this.database.handle();
      await db.insert(t).values({ userId, settings: {}, updatedAt: new Date() }).onConflictDoNothing();
      const [row] = await lockingRead(this.database, db.select({ settings: t.settings }).from(t).where(mine));
      const settings = update(row?.settings ?? {});
      await db.update(t).set({ settings, updatedAt: new Date() }).where(mine);
      return settings;
    });
  }

  async forSeries(userId: string, seriesId: string): Promise<ReaderSettings> {
    const t = this.database.tables.seriesReaderSettings;
    const [row] = await this.database
      .handle()
      .select({ settings: t.settings })
      .from(t)
      .where(and(eq(t.userId, userId), eq(t.seriesId, seriesId)));
    return row?.settings ?? {};
  }

  changeForSeries(userId: string, seriesId: string, update: SettingsUpdate): Promise<ReaderSettings> {
    const t = this.database.tables.seriesReaderSettings;
    const mine = and(eq(t.userId, userId), eq(t.seriesId, seriesId));
    return this.database.transaction(async () => {
      const db = this.database.handle();
      await db.insert(t).values({ userId, seriesId, settings: {}, updatedAt: new Date() }).onConflictDoNothing();
      const [row] = await lockingRead(this.database, db.select({ settings: t.settings }).from(t).where(mine));
      const settings = update(row?.settings ?? {});
      await db.update(t).set({ settings, updatedAt: new Date() }).where(mine);
      return settings;
    });
  }

  async deleteForSeries(userId: string, seriesId: string): Promise<void> {
    const t = this.database.tables.seriesReaderSettings;
    await this.database.transaction(async () => {
      await this.database
        .handle()
        .delete(t)
        .where(and(eq(t.userId, userId), eq(t.seriesId, seriesId)));
    });
  }
}
