/**
 * Builds the service layer from the configuration: the one place where dependencies are
 * created and handed to whoever needs them (no module singletons).
 */
import { passwordHasherFor, type PasswordHasher } from "./auth/passwords";
import { UserService } from "./auth/users";
import type { Config } from "./config/schema";
import type { DataPaths } from "./config/paths";
import type { Database, Repositories } from "./db";
import type { Logger } from "./logging/logger";

export interface Services {
  config: Config;
  paths: DataPaths;
  jwtSecret: string;
  log: Logger;
  database: Database;
  repositories: Repositories;
  passwords: PasswordHasher;
  users: UserService;
}

export interface ServiceInputs {
  config: Config;
  paths: DataPaths;
  jwtSecret: string;
  log: Logger;
  database: Database;
  repositories: Repositories;
}

export function createServices(inputs: ServiceInputs): Services {
  const passwords = passwordHasherFor(inputs.config);
  return { ...inputs, passwords, users: new UserService(inputs.repositories, passwords) };
}
