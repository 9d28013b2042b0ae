/**
 * Authentication for every slice: one Elysia plugin with an `auth` macro.
 *
 *   import { authPlugin } from "../auth-plugin";
 *
 *   export function libraryRoutes(services: Services) {
 *     return new Elysia({ name: "library-routes" })
 *       .use(authPlugin(services))
 *       .get("/api/v1/libraries", ({ caller }) => list(caller.user), { auth: "user" })
 *       .post("/api/v1/libraries", ({ body }) => create(body), { auth: "admin" });
 *   }
 *
 * `auth: "user"` admits any signed-in account, `auth: "admin"` only admins (else 403). The
 * handler receives `caller: { user: UserRecord, via: "jwt" | "apiKey" | "basic" | "session", authority }`.
 * What the caller's credential allows is checked here too (src/auth/authenticator.ts decides
 * it): a GET/HEAD/OPTIONS request reads; any other method writes, which a reader API key may
 * not. Two more levels say what a user route's writes are: `auth: "reading"` records reading
 * progress (reader keys may), `auth: "credentials"` creates or changes the caller's credentials
 * (only an interactive sign-in may, never an API key or Basic); `auth: "admin-credentials"` is
 * an admin route that does (creating users, their keys, resetting passwords). Accepted
 * credentials: Bearer JWT, Bearer API key, X-API-Key, HTTP Basic with password or API key, and
 * the web interface's session cookie (see src/auth/authenticator.ts). A state-changing request
 * made with the cookie also needs our origin and the CSRF token (src/http/browser-session.ts),
 * so the web pages and readers can call these routes while other sites cannot. Routes without
 * the option stay open.
 *
 * A 401 from /api/v1 carries no WWW-Authenticate header (no browser pop-up). OPDS readers need
 * the Basic challenge, so the OPDS slice uses `authPlugin(services, { basicChallenge: true })`,
 * which adds `WWW-Authenticate: Basic realm="Longbox"` to its 401 answers. Code that needs the
 * caller outside a route option can call `authenticateRequest(services, request, server)`.
 * The option also puts the accepted credentials into the route's OpenAPI `security`.
 */
import { Elysia } from "elysia";
import type { Server } from "bun";
import { assertAuthorityFor, type Caller, type RouteAction } from "../auth/authenticator";
import { DomainError } from "../errors";
import { assertCsrfProtected, isSafeMethod, sessionCookieOf } from "./browser-session";
import { clientIp } from "./client-address";
import { credentialOption, type CredentialServices } from "./credentials-before-body";
import { API_SECURITY } from "./openapi";

export type AccessLevel = "user" | "admin" | "reading" | "credentials" | "admin-credentials";

/** Per level: whether only admins may use the route, and what a write to it does. */
const LEVELS: Record<AccessLevel, { adminOnly: boolean; writes: RouteAction }> = {
  user: { adminOnly: false, writes: "write" },
  admin: { adminOnly: true, writes: "write" },
  reading: { adminOnly: false, writes: "record-progress" },
  credentials: { adminOnly: false, writes: "change-credentials" },
  "admin-credentials": { adminOnly: true, writes: "change-credentials" },
};

/** What a request to a route of `level` does: safe methods read, the others write as the level says. */
const actionOf = (request: Request, level: AccessLevel): RouteAction => (isSafeMethod(request) ? "read" : LEVELS[level].writes);

export interface AuthPluginOptions {
  /** Answer 401 with `WWW-Authenticate: Basic realm="Longbox"` (OPDS). */
  basicChallenge?: boolean;
}


export const BASIC_CHALLENGE = 'Basic realm="Longbox"';

/**
 * The caller of a request, or null when it carries no credentials; throws 401/403/429 for bad ones.
 * `browserSession: false` ignores the web interface's session cookie: slices that do not check
 * its CSRF token (Komga, KOReader sync) must not be reachable with it.
 */
export function authenticateRequest(
  services: CredentialServices,
  request: Request,
  server: Server<unknown> | null,
  options: { browserSession?: boolean } = {},
): Promise<Caller | null> {
  return services.authenticator.authenticate({
    authorization: request.headers.get("authorization"),
    apiKeyHeader: request.headers.get("x-api-key"),
    sessionCookie: options.browserSession === false ? null : sessionCookieOf(request),
    clientIp: () => clientIp(request, server, services.config.application.trust_proxy),
  });
}

/**
 * Callers authenticated during the transform phase, handed to `resolve`. Authentication runs at
 * transform so that it happens before request validation: a request without credentials gets
 * 401, never a 400 that would describe the route's schema to an anonymous client.
 */
const authenticatedCallers = new WeakMap<Request, Caller>();

/**
 * The check of the `auth` option (and of the web pages' `page` option), registered with the body
 * hook (src/http/credentials-before-body.ts): Elysia's parse phase comes before the transform
 * phase, so a route with a body gets its credentials checked there first, and the transform below
 * takes that verdict instead of authenticating twice. The route option that names the access
 * level, `x-longbox-access`, is also published in the OpenAPI document.
 */
const ACCESS = credentialOption({
  detailKey: "x-longbox-access",
  parameterOf: (value): AccessLevel | undefined => (typeof value === "string" && Object.hasOwn(LEVELS, value) ? (value as AccessLevel) : undefined),
  check: checkAccess,
});

/** The detail a route option adds so that the body hook checks the caller first. */
export const accessDetail = (level: AccessLevel) => ACCESS.detail(level);

/**
 * The caller of a request to a route of `level`, reusing the check made before its body was read
 * (one authentication per request); throws 401/403/429 when refused.
 */
export function callerWithAccess(services: CredentialServices, request: Request, server: Server<unknown> | null, level: AccessLevel): Promise<Caller> {
  return ACCESS.verdict(services, request, server, level);
}

async function checkAccess(services: CredentialServices, request: Request, server: Server<unknown> | null, level: AccessLevel): Promise<Caller> {
  const caller = await authenticateRequest(services, request, server);
  if (!caller) throw new DomainError("Unauthorized", "authentication required");
  if (LEVELS[level].adminOnly && caller.user.role !== "admin") throw new AdminOnly();
  assertAuthorityFor(caller, actionOf(request, level));
  return caller;
}

/** The 403 a signed-in non-admin gets from an admin route (its body is the usual Forbidden). */
export class AdminOnly extends DomainError {
  constructor() {
    super("Forbidden", "this needs an admin account");
  }
}

export function authPlugin(services: CredentialServices, options: AuthPluginOptions = {}) {
  const basicChallenge = options.basicChallenge ?? false;
  return new Elysia({ name: "auth-plugin", seed: { basicChallenge } }).macro({
    auth: (level: AccessLevel) => ({
      detail: { security: API_SECURITY, ...accessDetail(level) },
      async transform({ request, server, set, body }) {
        try {
          const caller = await callerWithAccess(services, request, server, level);
          // After the body was read: a plain form carries its CSRF token as a field.
          assertCsrfProtected(services.cookieSessions, caller, request, body, services.config.application.trust_proxy);
          authenticatedCallers.set(request, caller);
        } catch (error) {
          if (basicChallenge && error instanceof DomainError && error.kind === "Unauthorized") {
            set.headers["www-authenticate"] = BASIC_CHALLENGE;
          }
          throw error;
        }
      },
      resolve({ request }) {
        const caller = authenticatedCallers.get(request);
        if (!caller) throw new DomainError("Unauthorized", "authentication required");
        return { caller };
      },
    }),
  });
}
