/**
 * The web readers' settings, kept on the server so that every browser of a user opens a series
 * the same way: the user's defaults, and per series the choices made while reading it (the
 * reading mode, which for paged comics is the direction). What the reader shows is the series'
 * settings over the defaults. A change names only the fields it changes; null forgets a field.
 */
import type { ReaderSettings, Repositories } from "../db";
import type { Caller } from "./books";
import type { SeriesService } from "./series";

export type ReaderSettingsChange = { [Field in keyof ReaderSettings]?: ReaderSettings[Field] | null };

export interface SeriesReaderSettings {
  /** The caller's choices for the series alone. */
  series: ReaderSettings;
  /** The series' choices over the caller's defaults: what the reader applies. */
  effective: ReaderSettings;
}

export class ReaderSettingsService {
  constructor(
    private readonly repositories: Repositories,
    private readonly series: SeriesService,
  ) {}

  defaults(caller: Caller): Promise<ReaderSettings> {
    return this.repositories.readerSettings.defaults(caller.id);
  }

  changeDefaults(caller: Caller, change: ReaderSettingsChange): Promise<ReaderSettings> {
    return this.repositories.readerSettings.changeDefaults(caller.id, (stored) => applyChange(stored, change));
  }

  /** 404 for a series the caller cannot see. */
  async forSeries(caller: Caller, seriesId: string): Promise<SeriesReaderSettings> {
    await this.series.get(caller, seriesId);
    return this.effective(caller, seriesId);
  }

  async changeForSeries(caller: Caller, seriesId: string, change: ReaderSettingsChange): Promise<SeriesReaderSettings> {
    await this.series.get(caller, seriesId);
    await this.repositories.readerSettings.changeForSeries(caller.id, seriesId, (stored) => applyChange(stored, change));
    return this.effective(caller, seriesId);
  }

  async clearForSeries(caller: Caller, seriesId: string): Promise<void> {
    await this.series.get(caller, seriesId);
    await this.repositories.readerSettings.deleteForSeries(caller.id, seriesId);
  }

  /** The settings for a series the caller has already been allowed to read (the reader page). */
  async effective(caller: Caller, seriesId: string): Promise<SeriesReaderSettings> {
    const [defaults, series] = await Promise.all([this.defaults(caller), this.repositories.readerSettings.forSeries(caller.id, seriesId)]);
    return { series, effective: { ...defaults, ...series } };
  }
}

function applyChange(settings: ReaderSettings, change: ReaderSettingsChange): ReaderSettings {
  const result: Record<string, unknown> = { ...settings };
  for (const [field, value] of Object.entries(change)) {
    if (value === null) delete result[field];
    else if (value !== undefined) result[field] = value;
  }
  return result as ReaderSettings;
}
