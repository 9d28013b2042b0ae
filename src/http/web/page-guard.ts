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
import type { Services } from "../../services";
import { authenticateRequest } from "../auth-plugin";
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

export function pageGuard(services: Services) {
  const trustProxy = services.config.application.trust_proxy;

  async function viewerOf(request: Request, server: Server<unknown> | null, body: unknown): Promise<Viewer | null> {
    let caller;
    try {
      caller = await authenticateRequest(services, request, server);
    } catch (error) {
      // An ended session or a disabled account: the person simply is not signed in any more.
      if (error instanceof DomainError && (error.kind === "Unauthorized" || error.kind === "Forbidden")) return null;
      throw error;
    }
    if (!caller) return null;
    assertCsrfProtected(services.browserSessions, caller, request, body, trustProxy);
    return { user: caller.user, csrfToken: caller.sessionToken ? services.browserSessions.csrfToken(caller.sessionToken) : "" };
  }

  return new Elysia({ name: "web-page-guard" }).macro({
    /** Pages for signed-in users ("user") or admins only ("admin"); `viewer` is the signed-in person. */
    page: (access: "user" | "admin") => ({
      async resolve({ request, server, body, set, status }) {
        if (await services.users.setupNeeded()) {
          Object.assign(set.headers, redirectHeaders(request, "/setup"));
          return status(request.headers.get("hx-request") === "true" ? 200 : 303);
        }
        const viewer = await viewerOf(request, server, body);
        if (!viewer) {
          const url = new URL(request.url);
          const next = request.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
          Object.assign(set.headers, redirectHeaders(request, `/login${next}`));
          // A cookie that no longer opens a session is dropped.
          if (sessionCookieOf(request)) set.headers["set-cookie"] = clearedSessionCookie(request, trustProxy);
          return status(request.headers.get("hx-request") === "true" ? 200 : 303);
        }
        if (access === "admin" && viewer.user.role !== "admin") throw new DomainError("Forbidden", "this page is for admins");
        return { viewer };
      },
    }),
    /** Pages anyone may open (sign-in, setup, registration); `viewer` is null when nobody is signed in. */
    visitor: (_enabled: true) => ({
      async resolve({ request, server, body }) {
        const viewer = await viewerOf(request, server, body);
        if (!viewer) assertSameOrigin(request, trustProxy);
        return { viewer };
      },
    }),
  });
}

export type WebPageGuard = ReturnType<typeof pageGuard>;
