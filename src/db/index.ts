/**
 * The data layer's public face: open the database and get the repositories. Nothing outside
 * src/db imports drizzle.
 */
import type { Config } from "../config/schema";
import { openDatabase, type Database } from "./database";
import { UserRepository } from "./repositories/users";

export interface Repositories {
  users: UserRepository;
}

export interface DataLayer {
  database: Database;
  repositories: Repositories;
}

export function openDataLayer(config: Config, sqliteFile: string): DataLayer {
  const database = openDatabase(config, sqliteFile);
  return { database, repositories: { users: new UserRepository(database) } };
}

export type { Database } from "./database";
export type { NewUser, Role, UserChanges, UserRecord } from "./repositories/users";
