/**
 * The data layer's public face: open the database and get the repositories. Nothing outside
 * src/db imports drizzle.
 */
import type { Config } from "../config/schema";
import { openDatabase, type Database } from "./database";
import { CatalogueRepository } from "./repositories/catalogue";
import { LibraryRepository } from "./repositories/libraries";
import { ScanRepository } from "./repositories/scans";
import { UserRepository } from "./repositories/users";

export interface Repositories {
  users: UserRepository;
  libraries: LibraryRepository;
  scans: ScanRepository;
  catalogue: CatalogueRepository;
}

export interface DataLayer {
  database: Database;
  repositories: Repositories;
}

export function openDataLayer(config: Config, sqliteFile: string): DataLayer {
  const database = openDatabase(config, sqliteFile);
  return {
    database,
    repositories: {
      users: new UserRepository(database),
      libraries: new LibraryRepository(database),
      scans: new ScanRepository(database),
      catalogue: new CatalogueRepository(database),
    },
  };
}

export type { Database } from "./database";
export type { NewUser, Role, UserChanges, UserRecord } from "./repositories/users";
export type { LibraryRecord, NewLibrary, ReadingDirection, SeriesStrategy } from "./repositories/libraries";
export type { ScanCounters, ScanMode, ScanRecord, ScanState, ScanTrigger } from "./repositories/scans";
export { ZERO_COUNTERS } from "./repositories/scans";
export type { BookContent, BookErrorRecord, BookSnapshot, PageRecord, SeriesIdentity } from "./repositories/catalogue";
export type { LibraryScanningConfig, StoredBookMetadata } from "./schema/types";
