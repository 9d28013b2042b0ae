/**
 * Who may see a web page, as route options of an Elysia plugin:
 *
 *   new Elysia().use(guard).get("/books/:id", ({ viewer, params }) => ..., { page: "user" })
 *
 * A viewer carries `translator`, the messages and formats of their language (src/i18n); visitor
 * pages also get `translator` beside a null viewer.
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
import { AuthorityRefused, type Caller } from "../../auth/authenticator";
import { accessDetail, AdminOnly, authenticateRequest, callerWithAccess, type AccessLevel } from "../auth-plugin";
import { assertCsrfProtected, assertSameOrigin, clearedSessionCookie, sessionCookieOf } from "../browser-session";
import { negotiateLocale } from "../../i18n/negotiate";
import { translatorFor, type Translator } from "../../i18n/translator";
import { wantsFragment, type Viewer } from "./views";

/**
 * A redirect that also works for htmx requests (which would follow a 303 inside the page):
 * HX-Redirect loads the whole page. Every web redirect goes through here, so `location` is
 * decided by sameSitePath whatever the caller passes: a redirect never leaves the site.
 */
export function redirectTo(request: Request, location: string, headers: Record<string, string> = {}): Response {
  const target = sameSitePath(location);
  if (request.headers.get("hx-request") === "true") return new Response(null, { status: 200, headers: { ...headers, "hx-redirect": target } });
  return new Response(null, { status: 303, headers: { ...headers, location: target } });
}

const SITE = "http://longbox.invalid";

/**
 * Where a redirect may lead (after signing in: `next`): only a path of this site, else
 * `fallback`. Refused: anything with a control character or whitespace (browsers drop tabs and
 * newlines from a URL, so `/\t/evil.example` is read as `//evil.example`; a newline cannot be
 * a header value at all), backslashes (read as slashes), and anything that does not start with
 * one slash. What remains is resolved as a URL and must stay on the site; it is returned as
 * that URL serializes it (non-ASCII percent-encoded, as a header needs), and refused if that
 * serialization would itself start with `//` (`/.//evil.example`).
 */
export function sameSitePath(next: unknown, fallback = "/"): string {
  if (typeof next !== "string" || !/^\/(?!\/)/.test(next) || /[\s\p{Cc}\\]/u.test(next)) return fallback;
  const url = new URL(next, SITE);
  const path = url.pathname + url.search + url.hash;
  return url.origin === SITE && !path.startsWith("//") ? path : fallback;
}

/**
 * A page's access level, or with `menu: false` for a page without the site's menu (the
 * full-screen readers), which then does not read the libraries the menu lists.
 */
export type PageOption = AccessLevel | { access: AccessLevel; menu: false };

/**
 * The language of each request's page once the guard has found its viewer: an error met after
 * that (a book that is not there) is shown in the viewer's language, not only the browser's
 * (./error-pages.ts). Keyed by the request, so it goes with it.
 */
const pageTranslators = new WeakMap<Request, Translator>();

/** The translator of the viewer the guard found for `request`, if it found one. */
export function pageTranslatorOf(request: Request): Translator | undefined {
  return pageTranslators.get(request);
}

export function pageGuard(services: Services) {
  const trustProxy = services.config.application.trust_proxy;
  /**
   * Viewers decided in the transform phase, handed to `resolve`. Deciding at transform means
   * before request validation: a visitor without a session is sent to the sign-in page, never
   * shown a 400 that describes the page's form.
   */
  const viewers = new WeakMap<Request, Viewer | null>();

  /** The page's language: the viewer's setting, else the browser's, else the server's default (src/i18n/negotiate.ts). */
  const translatorOf = (request: Request, userLocale: string | null): Translator =>
    translatorFor(
      negotiateLocale({
        userLocale,
        acceptLanguage: request.headers.get("accept-language"),
        defaultLocale: services.config.application.default_locale,
      }),
    );

  const viewerFrom = (caller: Caller, request: Request): Viewer => {
    const translator = translatorOf(request, caller.user.locale);
    pageTranslators.set(request, translator);
    return { user: caller.user, csrfToken: caller.sessionToken ? services.cookieSessions.csrfToken(caller.sessionToken) : "", translator };
  };

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
    return viewerFrom(caller, request);
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
      // Signed in, but not an admin, or with a credential that may not do this: a 403 page. Any other refusal means signed out.
      if (error instanceof AdminOnly) throw new DomainError("Forbidden", "this page is for admins");
      if (error instanceof AuthorityRefused) throw error;
      if (!isSignedOut(error)) throw error;
      return null;
    }
    assertCsrfProtected(services.cookieSessions, caller, request, body, trustProxy);
    return viewerFrom(caller, request);
  }

  /**
   * A whole page shows every library the viewer can open in its menu (with its series count):
   * read here, once per page, so no page module has to. Fragments and form posts go without.
   */
  async function withNavigation(viewer: Viewer, request: Request, menu: boolean): Promise<Viewer> {
    if (!menu || request.method !== "GET" || wantsFragment(request)) return viewer;
    const libraries = await services.libraries.list(viewer.user);
    return { ...viewer, path: new URL(request.url).pathname, libraries: libraries.map(({ id, name, seriesCount }) => ({ id, name, seriesCount })) };
  }

  return new Elysia({ name: "web-page-guard" }).macro({
    /**
     * Pages for signed-in users ("user") or admins only ("admin"); `viewer` is the signed-in person.
     * The check runs at transform, before the request is validated, so someone signed out is sent
     * to sign in rather than told what the form should contain; the detail tells the body hook to
     * check before reading the body, and keeps the HTML pages out of the API's OpenAPI document.
     */
    page: (option: PageOption) => {
      const { access, menu } = typeof option === "string" ? { access: option, menu: true } : option;
      return {
        detail: { ...accessDetail(access), hide: true },
        async transform({ request, server, body }: { request: Request; server: Server<unknown> | null; body: unknown }) {
          if (await services.users.setupNeeded()) throw new EarlyAnswer(redirectTo(request, "/setup"));
          const viewer = await signedInViewer(request, server, body, access);
          if (!viewer) throw new EarlyAnswer(signInRedirect(request, trustProxy));
          viewers.set(request, await withNavigation(viewer, request, menu));
        },
        resolve({ request }: { request: Request }) {
          const viewer = viewers.get(request);
          if (!viewer) throw new DomainError("Unauthorized", "authentication required");
          return { viewer };
        },
      };
    },
    /** Pages anyone may open (sign-in, setup, registration); `viewer` is null when nobody is signed in. */
    visitor: (_enabled: true) => ({
      detail: { hide: true },
      async transform({ request, server, body }) {
        const viewer = await viewerOf(request, server, body);
        if (!viewer) assertSameOrigin(request, trustProxy);
        viewers.set(request, viewer);
      },
      resolve({ request }) {
        const viewer = viewers.get(request) ?? null;
        return { viewer, translator: viewer?.translator ?? translatorOf(request, null) };
      },
    }),
  });
}

/** To the sign-in page, coming back here afterwards; a cookie that no longer opens a session is dropped. */
function signInRedirect(request: Request, trustProxy: boolean): Response {
  const url = new URL(request.url);
  const next = request.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
  const stale: Record<string, string> = sessionCookieOf(request) ? { "set-cookie": clearedSessionCookie(request, trustProxy) } : {};
  return redirectTo(request, `/login${next}`, stale);
}

/** An ended session or a disabled account: the person simply is not signed in any more. */
function isSignedOut(error: unknown): boolean {
  return error instanceof DomainError && (error.kind === "Unauthorized" || error.kind === "Forbidden");
}

export type WebPageGuard = ReturnType<typeof pageGuard>;
