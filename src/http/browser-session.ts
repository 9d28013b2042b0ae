/**
 * The HTTP side of the web interface's cookie sessions (src/auth/cookie-sessions.ts): the session cookie and the
 * cross-site request checks.
 *
 * The cookie is HttpOnly, SameSite=Lax, Path=/, and Secure when the request came over https
 * (directly or, with application.trust_proxy, through the proxy). A request authenticated by the
 * cookie that changes state must (1) come from our own origin when it names one (Origin header,
 * else Sec-Fetch-Site) and (2) carry the session's CSRF token in the X-CSRF-Token header (htmx
 * sends it from `hx-headers` on <body>) or, for a plain form, in a `_csrf` field.
 */
import type { CookieSessions } from "../auth/cookie-sessions";
import type { Caller } from "../auth/authenticator";
import { DomainError } from "../errors";
import { requestOrigin } from "./client-address";
import { cookieOf, setCookie, type CookieScope } from "./cookies";

export const SESSION_COOKIE = "longbox_session";
const CSRF_HEADER = "x-csrf-token";
const CSRF_FIELD = "_csrf";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const isSafeMethod = (request: Request): boolean => SAFE_METHODS.has(request.method);

export function sessionCookieOf(request: Request): string | null {
  return cookieOf(request, SESSION_COOKIE);
}

function cookieScope(request: Request, trustProxy: boolean): CookieScope {
  return { path: "/", secure: requestOrigin(request, trustProxy).startsWith("https:") };
}

export function sessionCookie(request: Request, trustProxy: boolean, token: string, expiresAt: Date): string {
  return setCookie(SESSION_COOKIE, token, cookieScope(request, trustProxy), { expires: expiresAt });
}

export function clearedSessionCookie(request: Request, trustProxy: boolean): string {
  return setCookie(SESSION_COOKIE, "", cookieScope(request, trustProxy), { maxAge: 0 });
}

/**
 * Refuses a state-changing request sent by another site. Browsers send Origin on every
 * cross-origin request and on same-origin POSTs; when it is absent, Sec-Fetch-Site tells. A
 * request with neither does not come from a browser, so it cannot be a forged browser request.
 */
export function assertSameOrigin(request: Request, trustProxy: boolean): void {
  if (isSafeMethod(request)) return;
  const origin = request.headers.get("origin");
  if (origin !== null) {
    if (origin !== requestOrigin(request, trustProxy)) throw new DomainError("Forbidden", "cross-site request refused", undefined, "CsrfRejected");
    return;
  }
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") {
    throw new DomainError("Forbidden", "cross-site request refused", undefined, "CsrfRejected");
  }
}

/** The CSRF token a request carries: the header, else a `_csrf` form field. */
function presentedCsrfToken(request: Request, body: unknown): string | null {
  const header = request.headers.get(CSRF_HEADER);
  if (header) return header;
  if (body && typeof body === "object" && CSRF_FIELD in body) {
    const value = (body as Record<string, unknown>)[CSRF_FIELD];
    return typeof value === "string" ? value : null;
  }
  return null;
}

/** For a caller signed in with the session cookie: state changes need our origin and the CSRF token. */
export function assertCsrfProtected(sessions: CookieSessions, caller: Caller, request: Request, body: unknown, trustProxy: boolean): void {
  if (caller.via !== "session" || !caller.sessionToken || isSafeMethod(request)) return;
  assertSameOrigin(request, trustProxy);
  if (!sessions.csrfTokenMatches(caller.sessionToken, presentedCsrfToken(request, body))) {
    throw new DomainError("Forbidden", "the request carries no valid CSRF token; reload the page", undefined, "CsrfRejected");
  }
}
