/**
 * Who may see a web page, as route options of an Elysia plugin:
 *
 *   new Elysia().use(guard).get("/books/:id", ({ viewer, params }) => ..., { page: "user" })
 *
 * `page: "user" | "admin"` needs the session cookie (without it: a redirect to /login that comes
 * back afterwards; a non-admin on an admin page: 403); `visitor: true` pages get `viewer` or null.
 * While no user exists, every page leads to /setup. State-changing requests made with the
 * cookie must pass the CSRF checks of ../browser-session.ts; anonymous forms (login, setup,
 * registration) the origin check.
 */
import { Elysia } from "elysia";
import type { Server } from "bun";
import { DomainError } from "../../errors";
import { EarlyAnswer } from "../errors";
import type { Services } from "../../services";
import type { Caller } from "../../auth/authenticator";
import { accessDetail, authenticateRequest, callerWithAccess, type AccessLevel } from "../auth-plugin";
import { assertCsrfProtected, assertSameOrigin, clearedSessionCookie, sessionCookieOf } from "../browser-session";
import type { Viewer } from "./views";

/** The headers of a redirect that also works for htmx requests (which would follow a 303 inside the page). */
function redirectHeaders(request: Request, location: string): Record<string, string> {
  return request.headers.get("hx-request") === "true" ? { "hx-redirect": location } : { location };
}

/** A redirect answer from a handler (see redirectHeaders). */
export function redirectTo(request: Request, location: string, headers: Record<string, string> = {}): Response {
  const isHtmx = request.headers.get("hx-request") === "true";
  return new Response(null, { status: isHtmx ? 200 : 303, headers: { ...headers, ...redirectHeaders(request, location) } });
}

/** Only a path on this server (not `//elsewhere` or `https://...`): where to go after signing in. */
export function localPath(next: unknown, fallback = "/"): string {
  return typeof next === "string" && /^\/(?![/\\])/.test(next) ? next : fallback;
}

/** Viewers found by the `page` option's transform, handed to its resolve. */
const pageViewers = new WeakMap<Request, Viewer>();

export function pageGuard(services: Services) {
  const trustProxy = services.config.application.trust_proxy;

  const viewerFrom = (caller: Caller): Viewer => ({
    user: caller.user,
    csrfToken: caller.sessionToken ? services.cookieSessions.csrfToken(caller.sessionToken) : "",
  });

  async function viewerOf(request: Request, server: Server<unknown> | null, body: unknown): Promise<Viewer | null> {
    let caller;
    try {
      caller = await authenticateRequest(services, request, server);
    } catch (error) {
      if (isSignedOut(error)) return null;
      throw error;
    }
    if (!caller) return null;
    assertCsrfProtected(services.cookieSessions, caller, request, body, trustProxy);
    return viewerFrom(caller);
  }

  /**
   * The viewer of a page that needs `access`, or null when nobody is signed in. Uses the check the
   * body hook made before reading the body (src/http/request-body.ts), so a POST from someone
   * signed out is not read; a signed-in non-admin on an admin page is a 403.
   */
  async function signedInViewer(request: Request, server: Server<unknown> | null, body: unknown, access: AccessLevel): Promise<Viewer | null> {
    let caller;
    try {
      caller = await callerWithAccess(services, request, server, access);
    } catch (error) {
      if (!isSignedOut(error)) throw error;
      // Refused: signed out (an ended session, a disabled account), or signed in but not an admin.
      const signedIn = await authenticateRequest(services, request, server).catch(() => null);
      if (signedIn && access === "admin" && signedIn.user.role !== "admin") throw new DomainError("Forbidden", "this page is for admins");
      return null;
    }
    assertCsrfProtected(services.cookieSessions, caller, request, body, trustProxy);
    return viewerFrom(caller);
  }

  return new Elysia({ name: "web-page-guard" }).macro({
    /**
     * Pages for signed-in users ("user") or admins only ("admin"); `viewer` is the signed-in person.
     * The check runs at transform, before the request is validated, so someone signed out is sent
     * to sign in rather than told what the form should contain; the detail tells the body hook to
     * check before reading the body, and keeps the HTML pages out of the API's OpenAPI document.
     */
    page: (access: AccessLevel) => ({
      detail: { ...accessDetail(access), hide: true },
      async transform({ request, server, body }) {
        if (await services.users.setupNeeded()) throw new EarlyAnswer(redirectTo(request, "/setup"));
        const viewer = await signedInViewer(request, server, body, access);
        if (!viewer) {
          const url = new URL(request.url);
          const next = request.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
          // A cookie that no longer opens a session is dropped.
          const headers: Record<string, string> = sessionCookieOf(request) ? { "set-cookie": clearedSessionCookie(request, trustProxy) } : {};
          throw new EarlyAnswer(redirectTo(request, `/login${next}`, headers));
        }
        pageViewers.set(request, viewer);
      },
      resolve({ request }) {
        const viewer = pageViewers.get(request);
        if (!viewer) throw new DomainError("Unauthorized", "authentication required");
        return { viewer };
      },
    }),
    /** Pages anyone may open (sign-in, setup, registration); `viewer` is null when nobody is signed in. */
    visitor: (_enabled: true) => ({
      detail: { hide: true },
      async resolve({ request, server, body }) {
        const viewer = await viewerOf(request, server, body);
        if (!viewer) assertSameOrigin(request, trustProxy);
        return { viewer };
      },
    }),
  });
}

/** An ended session or a disabled account: the person simply is not signed in any more. */
function isSignedOut(error: unknown): boolean {
  return error instanceof DomainError && (error.kind === "Unauthorized" || error.kind === "Forbidden");
}

export type WebPageGuard = ReturnType<typeof pageGuard>;
