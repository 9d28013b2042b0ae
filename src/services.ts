/**
 * Builds the service layer from the configuration: the one place where dependencies are
 * created and handed to whoever needs them (no module singletons).
 */
import { AccessTokens } from "./auth/access-tokens";
import { ApiKeyService } from "./auth/api-keys";
import { Authenticator } from "./auth/authenticator";
import { LoginService } from "./auth/login";
import { LoginThrottle } from "./auth/login-throttle";
import { SmtpMailer } from "./auth/mailer";
import { OidcService } from "./auth/oidc";
import { passwordHasherFor, type PasswordHasher } from "./auth/passwords";
import { RefreshTokens } from "./auth/refresh-tokens";
import { RegistrationService } from "./auth/registration";
import { Sessions } from "./auth/sessions";
import { UserAdministration } from "./auth/user-admin";
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
  userAdministration: UserAdministration;
  refreshTokens: RefreshTokens;
  sessions: Sessions;
  login: LoginService;
  apiKeys: ApiKeyService;
  authenticator: Authenticator;
  registration: RegistrationService;
  oidc: OidcService;
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
  const { config, database, repositories, log } = inputs;
  const auth = config.auth;
  const passwords = passwordHasherFor(config);
  const users = new UserService(repositories, passwords);
  const accessTokens = new AccessTokens(inputs.jwtSecret, auth.jwt_expiry_hours);
  const refreshTokens = new RefreshTokens(
    database,
    repositories.refreshTokens,
    { enabled: auth.refresh_token_enabled, lifetimeDays: auth.refresh_token_expiry_days },
    log,
  );
  const sessions = new Sessions(repositories, accessTokens, refreshTokens, auth.email_confirmation_required);
  const throttle = new LoginThrottle(auth.login_max_failures, auth.login_window_minutes * 60_000);
  const login = new LoginService(repositories, passwords, throttle, sessions, log);
  const apiKeys = new ApiKeyService(repositories);
  return {
    ...inputs,
    passwords,
    users,
    userAdministration: new UserAdministration(database, repositories, users, passwords, refreshTokens),
    refreshTokens,
    sessions,
    login,
    apiKeys,
    authenticator: new Authenticator(repositories, accessTokens, apiKeys, login, auth.email_confirmation_required),
    registration: new RegistrationService(config, repositories, users, new SmtpMailer(config.email), log),
    oidc: new OidcService(auth.oidc.providers, repositories, sessions, log),
  };
}
