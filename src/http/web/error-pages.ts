/**
 * Errors on web pages answer HTML a person can read, never the API's JSON: a full error page
 * for a navigation, and for an htmx request a short alert swapped into the layout's #flash
 * region (wherever the request meant to swap). The message is the one the API would give,
 * escaped. Two errors of the page guard are redirects instead: to /login (coming back
 * afterwards) when nobody is signed in, and to /setup while no user exists.
 */
import type { ErrorBody, ErrorRenderer } from "../errors";
import { clearedSessionCookie, sessionCookieOf } from "../browser-session";
import { redirectTo } from "./page-guard";
import { htmlResponse, renderTemplate } from "./views";

const HEADINGS: Record<number, string> = {
  400: "Bad request",
  401: "Sign in needed",
  403: "Not allowed",
  404: "Not found",
  409: "Conflict",
  413: "Too large",
  422: "Cannot do that",
  429: "Too many attempts",
  500: "Something went wrong",
  503: "Unavailable",
};

/** Paths that belong to other slices (JSON, XML, event streams): their errors stay as they are. */
const NON_WEB_PATHS = /^\/(api|opds|health|metrics|kosync|komga)(\/|$)/;

const isWebPath = (pathname: string): boolean => !NON_WEB_PATHS.test(pathname);

function signInRedirect(request: Request, trustProxy: boolean): Response {
  const url = new URL(request.url);
  const next = request.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
  // A cookie that no longer opens a session is dropped.
  const stale: Record<string, string> = sessionCookieOf(request) ? { "set-cookie": clearedSessionCookie(request, trustProxy) } : {};
  return redirectTo(request, `/login${next}`, stale);
}

export function htmlErrorPages(trustProxy: boolean): ErrorRenderer {
  return (request, status, body, headers) => {
    if (!isWebPath(new URL(request.url).pathname)) return null;
    if (body.error === "SetupRequired") return redirectTo(request, "/setup");
    if (body.error === "SignInRequired") return signInRedirect(request, trustProxy);
    return errorPage(request, status, body, headers);
  };
}

function errorPage(request: Request, status: number, body: ErrorBody, headers: Record<string, string>): Response {
  const message = status >= 500 ? "An internal error occurred. The server log has the details." : body.message;
  if (request.headers.get("hx-request") === "true" && request.headers.get("hx-boosted") !== "true") {
    return htmlResponse(renderTemplate("partials/alert", { message }), status, { ...headers, "hx-retarget": "#flash", "hx-reswap": "innerHTML" });
  }
  const heading = HEADINGS[status] ?? "Error";
  return htmlResponse(renderTemplate("pages/error", { title: heading, viewer: null, status, heading, message }), status, headers);
}
