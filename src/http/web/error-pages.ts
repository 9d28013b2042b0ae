/**
 * Errors on web pages answer HTML a person can read, never the API's JSON: a full error page
 * for a navigation, and for an htmx request a short alert swapped into the layout's #flash
 * region (wherever the request meant to swap). The message is the one the API would give,
 * escaped. (The page guard answers signed-out visitors and a server without users itself, with
 * redirects to /login and /setup.)
 */
import type { ErrorBody, ErrorRenderer } from "../errors";
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

/** First path segments of the other slices (JSON, XML, event streams): their errors stay as they are. */
const NON_WEB_SEGMENTS = ["api", "opds", "health", "metrics", "koreader", "sse"];

/** `komgaPrefix`: the Komga-compatible API's configurable first segment (komga_api.prefix). */
export function htmlErrorPages(komgaPrefix: string): ErrorRenderer {
  const nonWeb = new Set([...NON_WEB_SEGMENTS, komgaPrefix]);
  const isWebPath = (pathname: string) => !nonWeb.has(pathname.split("/")[1] ?? "");
  return (request, status, body, headers) => (isWebPath(new URL(request.url).pathname) ? errorPage(request, status, body, headers) : null);
}

function errorPage(request: Request, status: number, body: ErrorBody, headers: Record<string, string>): Response {
  const message = status >= 500 ? "An internal error occurred. The server log has the details." : body.message;
  if (request.headers.get("hx-request") === "true" && request.headers.get("hx-boosted") !== "true") {
    return htmlResponse(renderTemplate("partials/alert", { message }), status, { ...headers, "hx-retarget": "#flash", "hx-reswap": "innerHTML" });
  }
  const heading = HEADINGS[status] ?? "Error";
  return htmlResponse(renderTemplate("pages/error", { title: heading, viewer: null, status, heading, message }), status, headers);
}
