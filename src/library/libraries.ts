/**
 * Libraries: named folders the service catalogues. Validation follows the contract: the path
 * is an absolute, existing, readable directory that neither contains nor lies inside another
 * library's path; the cron schedule has five fields; the reading direction and the series
 * strategy are known values. Deleting a library removes its catalogue entries, never a file.
 */
import { access, constants, realpath, stat } from "node:fs/promises";
import { isAbsolute, sep } from "node:path";
import { validateCronExpression } from "cron";
import type { LibraryRecord, LibraryScanningConfig, NewLibrary, ReadingDirection, Repositories, SeriesStrategy, UserRecord } from "../db";
import type { AccessService, SeriesVisibility } from "../access/visibility";
import { DomainError, invalidFields, notFound } from "../errors";

export const READING_DIRECTIONS = ["ltr", "rtl", "ttb", "webtoon"] as const satisfies readonly ReadingDirection[];
export const SERIES_STRATEGIES = ["series_volume", "flat", "publisher_hierarchy", "calibre"] as const satisfies readonly SeriesStrategy[];

export interface LibraryInput {
  name?: string;
  path?: string;
  defaultReadingDirection?: ReadingDirection;
  seriesStrategy?: SeriesStrategy;
  scanningConfig?: Partial<LibraryScanningConfig>;
}

/**
 * A library as the API shows it: the record with its (visible) counts, dates as ISO text. The
 * folder's `path` is shown to admins only (AccessService.seesServerInternals).
 */
export interface LibraryDto extends Omit<LibraryRecord, "createdAt" | "updatedAt" | "path" | "rootMountPoint"> {
  path?: string;
  seriesCount: number;
  bookCount: number;
  createdAt: string;
  updatedAt: string;
}

const DEFAULT_SCANNING: LibraryScanningConfig = {
  enabled: false,
  cronSchedule: null,
  defaultMode: "normal",
  scanOnStart: false,
  watch: true,
  pollSeconds: null,
};

/** Told when libraries change, so schedules follow without a restart. */
export interface LibraryObserver {
  /**
   * `createdElsewhere`: the library was made through another process (role web, another
   * instance) since this one started, and reaches it only now (LibraryRefresher): whatever
   * happened in its folder meanwhile was seen by nobody here.
   */
  libraryChanged(library: LibraryRecord, createdElsewhere?: boolean): void;
  libraryRemoved(libraryId: string): void;
}

export class LibraryService {
  private readonly observers: LibraryObserver[] = [];

  constructor(
    private readonly repositories: Repositories,
    private readonly access: AccessService,
  ) {}

  observe(observer: LibraryObserver): void {
    this.observers.push(observer);
  }

  /**
   * The libraries the caller may see; the counts leave out series hidden from the caller. A
   * user whose grants restrict what they see does not see a library where every series is
   * hidden from them (not even its name): hidden content behaves as if it did not exist.
   */
  async list(caller: Pick<UserRecord, "id" | "role">): Promise<LibraryDto[]> {
    const libraries = await this.repositories.libraries.list();
    const visibility = await this.access.seriesVisibility(caller);
    const showPath = this.access.seesServerInternals(caller);
    const listed = await Promise.all(libraries.map((library) => this.toDto(library, visibility, showPath)));
    return visibility ? listed.filter(hasSeries) : listed;
  }

  /** One library the caller may see (404 for one whose every series is hidden from them, as in `list`). */
  async get(caller: Pick<UserRecord, "id" | "role">, id: string): Promise<LibraryDto> {
    const visibility = await this.access.seriesVisibility(caller);
    const library = await this.toDto(await this.require(id), visibility, this.access.seesServerInternals(caller));
    if (visibility && !hasSeries(library)) throw notFound("library");
    return library;
  }

  async require(id: string): Promise<LibraryRecord> {
    const library = await this.repositories.libraries.findById(id);
    if (!library) throw notFound("library");
    return library;
  }

  async create(input: LibraryInput): Promise<LibraryDto> {
    const missing: Record<string, string> = {};
    if (!input.name?.trim()) missing.name = "is required";
    if (!input.path) missing.path = "is required";
    if (Object.keys(missing).length > 0) throw invalidFields("BadRequest", missing);
    const candidate: NewLibrary = {
      name: input.name!.trim(),
      path: input.path!,
      defaultReadingDirection: input.defaultReadingDirection ?? "ltr",
      seriesStrategy: input.seriesStrategy ?? "series_volume",
      scanningConfig: { ...DEFAULT_SCANNING, ...input.scanningConfig },
    };
    const library = await this.repositories.libraries.create(await this.validated(candidate, undefined));
    this.notifyChanged(library);
    return this.toDto(library);
  }

  async update(id: string, input: LibraryInput): Promise<LibraryDto> {
    const current = await this.require(id);
    const candidate: NewLibrary = {
      name: input.name?.trim() ?? current.name,
      path: input.path ?? current.path,
      defaultReadingDirection: input.defaultReadingDirection ?? current.defaultReadingDirection,
      seriesStrategy: input.seriesStrategy ?? current.seriesStrategy,
      scanningConfig: { ...current.scanningConfig, ...input.scanningConfig },
    };
    const updated = await this.repositories.libraries.update(id, await this.validated(candidate, id));
    if (!updated) throw notFound("library");
    this.notifyChanged(updated);
    return this.toDto(updated);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.repositories.libraries.delete(id))) throw notFound("library");
    for (const observer of this.observers) observer.libraryRemoved(id);
  }

  /** Permanent deletion of the library's soft-deleted books (their files are not touched). */
  async purgeDeletedBooks(id: string): Promise<number> {
    await this.require(id);
    return this.repositories.catalogue.purgeDeleted(id);
  }

  private notifyChanged(library: LibraryRecord): void {
    for (const observer of this.observers) observer.libraryChanged(library);
  }

  private async validated(library: NewLibrary, ownId: string | undefined): Promise<NewLibrary> {
    const badValues: Record<string, string> = {};
    if (!READING_DIRECTIONS.includes(library.defaultReadingDirection)) {
      badValues.defaultReadingDirection = `must be one of ${READING_DIRECTIONS.join(", ")}`;
    }
    if (!SERIES_STRATEGIES.includes(library.seriesStrategy)) {
      badValues.seriesStrategy = `must be one of ${SERIES_STRATEGIES.join(", ")}`;
    }
    const scanning = library.scanningConfig;
    if (scanning.defaultMode !== "normal" && scanning.defaultMode !== "deep") {
      badValues["scanningConfig.defaultMode"] = "must be normal or deep";
    }
    if (scanning.cronSchedule !== null && scanning.cronSchedule !== undefined && scanning.cronSchedule !== "") {
      const problem = cronProblem(scanning.cronSchedule);
      if (problem) badValues["scanningConfig.cronSchedule"] = problem;
    } else {
      scanning.cronSchedule = null;
      if (scanning.enabled) badValues["scanningConfig.cronSchedule"] = "is required when automatic scanning is enabled";
    }
    if (Object.keys(badValues).length > 0) throw invalidFields("BadRequest", badValues);

    const path = await this.usableDirectory(library.path);
    const others = (await this.repositories.libraries.list()).filter((other) => other.id !== ownId);
    const sameName = others.find((other) => other.name === library.name);
    if (sameName) throw new DomainError("Conflict", "a library with this name already exists", { fields: { name: "taken" } });
    const overlapping = others.find((other) => contains(other.path, path) || contains(path, other.path));
    if (overlapping) {
      throw new DomainError("Conflict", `the path overlaps the library "${overlapping.name}"`, {
        fields: { path: `overlaps ${overlapping.path}` },
      });
    }
    return { ...library, path };
  }

  /** The canonical path of an absolute, existing, readable directory, or a 422. */
  private async usableDirectory(path: string): Promise<string> {
    if (!isAbsolute(path)) throw invalidFields("UnprocessableEntity", { path: "must be an absolute path" });
    try {
      const canonical = await realpath(path);
      if (!(await stat(canonical)).isDirectory()) throw invalidFields("UnprocessableEntity", { path: "is not a directory" });
      await access(canonical, constants.R_OK | constants.X_OK);
      return canonical;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === "ENOENT" ? "does not exist" : code === "EACCES" ? "is not readable by the service" : "cannot be read";
      throw invalidFields("UnprocessableEntity", { path: reason });
    }
  }

  /** `visibility` undefined counts everything (admins, and answers to admin-only changes). */
  private async toDto(library: LibraryRecord, visibility?: SeriesVisibility, showPath = true): Promise<LibraryDto> {
    const counts = await this.repositories.libraries.counts(library.id, visibility);
    return {
      id: library.id,
      name: library.name,
      ...(showPath && { path: library.path }),
      defaultReadingDirection: library.defaultReadingDirection,
      seriesStrategy: library.seriesStrategy,
      scanningConfig: library.scanningConfig,
      ...counts,
      createdAt: library.createdAt.toISOString(),
      updatedAt: library.updatedAt.toISOString(),
    };
  }
}

const hasSeries = (library: LibraryDto): boolean => library.seriesCount > 0;

/** Whether `inner` is `outer` or lies below it. */
function contains(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

/** Five fields (minute hour day-of-month month day-of-week), as the specification says. */
export function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return `must have five fields (minute hour day-of-month month day-of-week), found ${fields.length}`;
  const { valid, error } = validateCronExpression(expression);
  return valid ? undefined : `is not a valid cron expression: ${error?.message ?? "unknown reason"}`;
}
