/**
 * Errors on web pages answer HTML a person can read, never the API's JSON: a full error page
 * for a navigation, and for an htmx request a short alert swapped into the layout's #flash
 * region (wherever the request meant to swap). The words are the web interface's own, in the
 * signed-in viewer's language when the page guard had found the viewer before the error, else
 * the browser's (else the server's default): the heading by status, the message by the API's
 * error code (`apiError.<code>`), never the API's English message. (The page guard
 * answers signed-out visitors and a server without users itself, with redirects to /login and
 * /setup.)
 */
import { hasMessage } from "../../i18n/catalogs";
import { negotiateLocale } from "../../i18n/negotiate";
import { translatorFor } from "../../i18n/translator";
import type { ErrorBody, ErrorRenderer } from "../errors";
import { problemOfAnswer } from "./forms";
import { pageTranslatorOf } from "./page-guard";
import { htmlResponse, renderTemplate } from "./views";

/** Statuses with a heading of their own (`errorPage.heading.<status>`); others are "Error". */
const HEADED_STATUSES = new Set([400, 401, 403, 404, 409, 413, 422, 429, 500, 503]);

/** First path segments of the other slices (JSON, XML, event streams): their errors stay as they are. */
const NON_WEB_SEGMENTS = ["api", "opds", "health", "metrics", "koreader", "sse"];

/** `komgaPrefix`: the Komga-compatible API's configurable first segment (komga_api.prefix). */
export function htmlErrorPages(komgaPrefix: string, defaultLocale: string): ErrorRenderer {
  const nonWeb = new Set([...NON_WEB_SEGMENTS, komgaPrefix]);
  const isWebPath = (pathname: string) => !nonWeb.has(pathname.split("/")[1] ?? "");
  return (request, status, body, headers) => (isWebPath(new URL(request.url).pathname) ? errorPage(request, status, body, headers, defaultLocale) : null);
}

function errorPage(request: Request, status: number, body: ErrorBody, headers: Record<string, string>, defaultLocale: string): Response {
  const translator = pageTranslatorOf(request) ?? translatorFor(negotiateLocale({ acceptLanguage: request.headers.get("accept-language"), defaultLocale }));
  const { t } = translator;
  const message =
    status >= 500
      ? t("errorPage.internal")
      : hasMessage(`apiError.${body.error}`)
        ? problemOfAnswer(body.error, body.details?.fields as Record<string, string> | undefined, translator).message
        : t("errorPage.other");
  if (request.headers.get("hx-request") === "true" && request.headers.get("hx-boosted") !== "true") {
    return htmlResponse(renderTemplate("partials/alert", { translator, message }), status, { ...headers, "hx-retarget": "#flash", "hx-reswap": "innerHTML" });
  }
  const heading = HEADED_STATUSES.has(status) ? t(`errorPage.heading.${status}`) : t("errorPage.heading.other");
  return htmlResponse(renderTemplate("pages/error", { translator, title: heading, viewer: null, status, heading, message }), status, headers);
}
