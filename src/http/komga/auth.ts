/**
 * Authentication as Komga clients expect it (docs/komga-api.md, "Authentication"):
 *
 * - No credentials: 401 with `WWW-Authenticate: Basic realm="Realm"` (Mihon retries with Basic
 *   only after a 401; a 403 would break it). `X-Requested-With: XMLHttpRequest` leaves the
 *   header out, as Spring does, so browsers show no pop-up.
 * - `Authorization` (Basic with password or API key, Bearer) and `X-API-Key`: Longbox's own
 *   authenticator, throttling included.
 * - A successful Basic or API-key request that came without a live session of that user gets
 *   a cookie session (src/auth/cookie-sessions.ts) and `KOMGA-SESSION` with Path = the Komga
 *   prefix path (Komelia drops cookies for other paths), HttpOnly, SameSite=Lax, Secure on
 *   https. With `remember-me=true` Basic also sets the long-lived `komga-remember-me`. Both are
 *   the sessions last started for the same credential and User-Agent while they live
 *   (`startForClient`), so a client that ignores cookies holds one session, not one per request.
 * - Later requests may carry only those cookies; `komga-remember-me` alone starts a new
 *   session (a client's restart; again reused while the client keeps not sending it). An ended
 *   session counts as no credentials (401).
 * - Komga's header sessions: with an `X-Auth-Token` request header (even empty) the session
 *   travels in that header instead (a new one is answered in `X-Auth-Token`);
 *   GET /api/v1/login/set-cookie turns it into the cookie.
 * - Credentials are checked before a request body is read (the `komga` option registers its
 *   check with src/http/credentials-before-body.ts), so a stranger's body is never read.
 * - What the credential may do (its authority: a reader-scoped key reads and records progress
 *   only) is checked there too, for every route from its option: `komga: true` routes read with
 *   safe methods and write with the others; `komga: "progress"` routes record reading progress;
 *   `komga: "reads"` routes only read whatever their method (Komga's POST searches, logout).
 */
import { Elysia } from "elysia";
import type { Server } from "bun";
import { assertAuthorityFor, type Authority, type CredentialKind, type RouteAction } from "../../auth/authenticator";
import type { UserRecord } from "../../db";
import { DomainError } from "../../errors";
import type { Services } from "../../services";
import { authenticateRequest } from "../auth-plugin";
import { isSafeMethod } from "../browser-session";
import { publicOrigin } from "../client-address";
import { cookieOf, setCookie, type CookieScope } from "../cookies";
import { credentialOption, type CredentialServices } from "../credentials-before-body";
import { API_SECURITY } from "../openapi";

export const SESSION_COOKIE = "KOMGA-SESSION";
export const REMEMBER_ME_COOKIE = "komga-remember-me";
const KOMGA_CHALLENGE = 'Basic realm="Realm"';


/** Where Komga clients find the API: the public path of the prefix, and whether it is https. */
export function komgaCookieScope(services: Pick<Services, "config">, request: Request): CookieScope {
  const { base_url: baseUrl, trust_proxy: trustProxy } = services.config.application;
  const origin = new URL(publicOrigin(request, baseUrl, trustProxy));
  return { path: `${origin.pathname.replace(/\/+$/, "")}/${services.config.komga_api.prefix}`, secure: origin.protocol === "https:" };
}

const REMEMBER_ME_VALUES = new Set(["true", "on", "yes", "1"]);

export interface KomgaCaller {
  user: UserRecord;
  via: CredentialKind | "session";
  /** What the credential may do (src/auth/authenticator.ts); a client's session keeps its key's. */
  authority: Authority;
  /** The session the request used or started (undefined for bearer tokens, which need none). */
  sessionToken?: string;
}

/** What authentication adds to the answer: new cookies, or the session in X-Auth-Token. */
interface SessionAnswer {
  setCookies: string[];
  authToken?: string;
}

/**
 * Which client a credentialed request comes from, for reusing its session: the credential it
 * presents, its User-Agent, and what the session is for (the session or remember-me).
 */
function clientKey(request: Request, purpose: string): string {
  const { headers } = request;
  return [purpose, headers.get("authorization"), headers.get("x-api-key"), headers.get("user-agent")].join("\0");
}

/** Resolves the caller from credentials or a session; null when the request carries neither. */
async function resolveCaller(
  services: CredentialServices,
  request: Request,
  server: Server<unknown> | null,
  answer: SessionAnswer,
): Promise<KomgaCaller | null> {
  const { cookieSessions, config } = services;
  const credentialed = await authenticateRequest(services, request, server, { browserSession: false });
  // A bearer token needs no session: none is read or started.
  if (credentialed?.via === "jwt") return credentialed;
  // Komga: an X-Auth-Token header (even empty) carries the session instead of the cookie.
  const headerToken = request.headers.get("x-auth-token");
  const sessionToken = headerToken || cookieOf(request, SESSION_COOKIE) || undefined;
  const sessionUser = sessionToken ? await cookieSessions.resume(sessionToken) : undefined;
  const scope = komgaCookieScope(services, request);
  const handOut = (token: string) => {
    if (headerToken !== null) answer.authToken = token;
    else answer.setCookies.push(setCookie(SESSION_COOKIE, token, scope));
  };

  if (credentialed) {
    // Basic and API keys get a session unless the request already has one of that user.
    // (Komga starts none for API keys; Longbox does, so that the Mihon tracker, which sends
    // only cookies, also works for users of an API key.)
    let token = sessionToken;
    // A reader-scoped key's session is of the reader kind, so cookie-only requests keep its limits.
    const authority = credentialed.authority === "reader" ? "reader" : "full";
    if (sessionUser?.id !== credentialed.user.id || cookieSessions.clientAuthority(sessionToken!) !== authority) {
      token = (await cookieSessions.startForClient(credentialed.user, clientKey(request, "session"), config.komga_api.session_days, authority)).token;
      handOut(token);
    }
    const rememberMe = new URL(request.url).searchParams.get("remember-me");
    if (credentialed.via === "basic" && rememberMe && REMEMBER_ME_VALUES.has(rememberMe.toLowerCase())) {
      const remembered = await cookieSessions.startForClient(credentialed.user, clientKey(request, "remember-me"), config.komga_api.remember_me_days, authority);
      const maxAge = Math.round((remembered.expiresAt.getTime() - Date.now()) / 1000);
      answer.setCookies.push(setCookie(REMEMBER_ME_COOKIE, remembered.token, scope, { maxAge }));
    }
    return { ...credentialed, sessionToken: token };
  }
  if (sessionUser) return { user: sessionUser, via: "session", authority: cookieSessions.clientAuthority(sessionToken!), sessionToken };
  const rememberToken = cookieOf(request, REMEMBER_ME_COOKIE);
  const remembered = rememberToken ? await cookieSessions.resume(rememberToken) : undefined;
  if (!remembered) return null;
  // A client's restart: a new session, the same one for each request until the client sends it,
  // limited as the remembered one is (a reader key's stays a reader's).
  const authority = cookieSessions.clientAuthority(rememberToken!);
  const { token } = await cookieSessions.startForClient(remembered, clientKey(request, `restart\0${rememberToken}`), config.komga_api.session_days, authority);
  handOut(token);
  return { user: remembered, via: "session", authority, sessionToken: token };
}

/** An admitted Komga caller, with what authentication adds to the answer. */
interface Resolution {
  caller: KomgaCaller;
  answer: SessionAnswer;
}

/**
 * The check of the `komga` option, registered with the body hook (src/http/credentials-before-body.ts):
 * Elysia parses before the transform phase, so a route with a body gets its credentials checked
 * there first, and the transform below takes that verdict instead of resolving (and starting
 * sessions) twice. Its routes carry `x-longbox-komga-auth: true` in their detail.
 */
/** What a Komga route does, for the caller's authority (see the top of this file). */
export type KomgaRouteKind = true | "progress" | "reads";

const actionOf = (request: Request, kind: KomgaRouteKind): RouteAction =>
  kind === "reads" || isSafeMethod(request) ? "read" : kind === "progress" ? "record-progress" : "write";

const KOMGA_CREDENTIALS = credentialOption({
  detailKey: "x-longbox-komga-auth",
  parameterOf: (value): KomgaRouteKind | undefined => (value === true || value === "progress" || value === "reads" ? value : undefined),
  async check(services, request, server, kind): Promise<Resolution> {
    const answer: SessionAnswer = { setCookies: [] };
    const caller = await resolveCaller(services, request, server, answer);
    if (!caller) throw new DomainError("Unauthorized", "authentication required");
    assertAuthorityFor(caller, actionOf(request, kind));
    return { caller, answer };
  },
});

const komgaCallers = new WeakMap<Request, KomgaCaller>();

/** The `komga` route option: any signed-in account, by Komga's rules (see the top of this file). */
export function komgaAuth(services: CredentialServices) {
  return new Elysia({ name: "komga-auth" }).macro({
    komga: (kind: KomgaRouteKind) => ({
      detail: { security: API_SECURITY, ...KOMGA_CREDENTIALS.detail(kind) },
      async transform({ request, server, set }) {
        try {
          const { caller, answer } = await KOMGA_CREDENTIALS.verdict(services, request, server, kind);
          if (answer.setCookies.length > 0) set.headers["set-cookie"] = answer.setCookies;
          if (answer.authToken) set.headers["x-auth-token"] = answer.authToken;
          komgaCallers.set(request, caller);
        } catch (error) {
          if (error instanceof DomainError && error.kind === "Unauthorized" && request.headers.get("x-requested-with") !== "XMLHttpRequest") {
            set.headers["www-authenticate"] = KOMGA_CHALLENGE;
          }
          throw error;
        }
      },
      resolve({ request }) {
        const caller = komgaCallers.get(request);
        if (!caller) throw new DomainError("Unauthorized", "authentication required");
        return { caller };
      },
    }),
  });
}
