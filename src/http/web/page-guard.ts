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
import { assertCsrfProtected, assertSameOrigin } from "../browser-session";
import type { Viewer } from "./views";

/** A redirect that also works for htmx requests (which would follow a 303 inside the page): HX-Redirect loads the whole page. */
export function redirectTo(request: Request, location: string, headers: Record<string, string> = {}): Response {
  if (request.headers.get("hx-request") === "true") return new Response(null, { status: 200, headers: { ...headers, "hx-redirect": location } });
  return new Response(null, { status: 303, headers: { ...headers, location } });
}

/** Only a path on this server (not `//elsewhere` or `https://...`): where to go after signing in. */
export function localPath(next: unknown, fallback = "/"): string {
  return typeof next === "string" && /^\/(?![/\\])/.test(next) ? next : fallback;
}

/** Thrown before a page runs when nobody is signed in; the web error pages turn it into a redirect to /login. */
export const signInRequired = () => new DomainError("Unauthorized", "sign in to see this page", undefined, "SignInRequired");
/** Thrown while no user exists; the web error pages turn it into a redirect to /setup. */
export const setupRequired = () => new DomainError("Unauthorized", "create the first account first", undefined, "SetupRequired");

export function pageGuard(services: Services) {
  const trustProxy = services.config.application.trust_proxy;
  /**
   * Viewers decided in the transform phase, handed to `resolve`. Deciding at transform means
   * before request validation: a visitor without a session is sent to the sign-in page, never
   * shown a 400 that describes the page's form.
   */
  const viewers = new WeakMap<Request, Viewer | null>();

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
      async transform({ request, server, body }) {
        if (await services.users.setupNeeded()) throw setupRequired();
        const viewer = await viewerOf(request, server, body);
        if (!viewer) throw signInRequired();
        if (access === "admin" && viewer.user.role !== "admin") throw new DomainError("Forbidden", "this page is for admins");
        viewers.set(request, viewer);
      },
      resolve({ request }) {
        const viewer = viewers.get(request);
        if (!viewer) throw signInRequired();
        return { viewer };
      },
    }),
    /** Pages anyone may open (sign-in, setup, registration); `viewer` is null when nobody is signed in. */
    visitor: (_enabled: true) => ({
      async transform({ request, server, body }) {
        const viewer = await viewerOf(request, server, body);
        if (!viewer) assertSameOrigin(request, trustProxy);
        viewers.set(request, viewer);
      },
      resolve({ request }) {
        return { viewer: viewers.get(request) ?? null };
      },
    }),
  });
}

export type WebPageGuard = ReturnType<typeof pageGuard>;
