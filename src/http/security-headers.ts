/**
 * Security headers. Every response gets the defaults below; a response that sets one of them
 * itself keeps its own value (book resources, the API reference page). They are written onto a
 * handler's own Response (and onto error answers by src/http/errors.ts), not through Elysia's
 * default headers: any `set.headers` makes Elysia rebuild a returned Response from its body
 * stream, and a page sent straight from the book file by Bun would be copied through
 * JavaScript instead (measured in docs/benchmarks.md, issue 14).
 *
 * - `X-Content-Type-Options: nosniff`: a type we send is the type the browser uses.
 * - `Referrer-Policy: same-origin`: URLs (with ids, verification tokens) never leave as a referrer.
 * - `X-Frame-Options: DENY` and CSP `frame-ancestors 'none'`: no page frames ours (clickjacking).
 *   HTML pages set a full CSP of their own; this default carries only the framing rule, so that
 *   a page without one still gets it.
 * - `Strict-Transport-Security: max-age=31536000` on answers to requests that came over https
 *   (TLS, or a trusted proxy's `X-Forwarded-Proto: https`): browsers then never use plain http
 *   for a year. `includeSubDomains` only with application.hsts_include_subdomains, since it
 *   binds every other site of the domain too. Over plain http it is not sent (browsers ignore it
 *   there, and a server reached by http only must stay reachable).
 */
import { Elysia } from "elysia";
import { requestScheme } from "./client-address";

export const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
} as const;

/**
 * Book resources (EPUB XHTML, SVG, CSS, fonts) are active content written by whoever made the
 * book. They are sandboxed: no script runs (no `allow-scripts`), no form is sent, no popup or
 * top-level navigation; `allow-same-origin` only lets the sandboxed page load the book's own
 * styles, images and fonts (fonts are fetched with CORS). Only our own pages (the web reader)
 * may frame them.
 */
export const BOOK_RESOURCE_HEADERS = {
  "content-security-policy": [
    "sandbox allow-same-origin",
    "default-src 'none'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "media-src 'self'",
    "frame-ancestors 'self'",
  ].join("; "),
  "x-frame-options": "SAMEORIGIN",
} as const;

const DEFAULTS = Object.entries(SECURITY_HEADERS);

const HSTS_HEADER = "strict-transport-security";
const HSTS_MAX_AGE_SECONDS = 31_536_000;

/** What decides the Strict-Transport-Security header: from application.* of the configuration. */
export interface TransportSettings {
  trust_proxy: boolean;
  hsts_include_subdomains: boolean;
}

/** The Strict-Transport-Security value for a request that came over https; undefined over http. */
function strictTransportFor(request: Request, settings: TransportSettings): string | undefined {
  if (requestScheme(request, settings.trust_proxy) !== "https") return undefined;
  return `max-age=${HSTS_MAX_AGE_SECONDS}${settings.hsts_include_subdomains ? "; includeSubDomains" : ""}`;
}

/** Adds the defaults a response does not set itself (and, given the request, HSTS over https). */
export function withSecurityHeaders(response: Response, request?: Request, settings?: TransportSettings): Response {
  const { headers } = response;
  for (const [name, value] of DEFAULTS) if (!headers.has(name)) headers.set(name, value);
  const hsts = request && settings && strictTransportFor(request, settings);
  if (hsts) headers.set(HSTS_HEADER, hsts);
  return response;
}

export function securityHeaders(settings: TransportSettings) {
  return new Elysia({ name: "security-headers" }).onAfterHandle({ as: "global" }, ({ request, responseValue, set }) => {
    if (responseValue instanceof Response) {
      withSecurityHeaders(responseValue, request, settings);
      return;
    }
    for (const [name, value] of DEFAULTS) set.headers[name] ??= value;
    const hsts = strictTransportFor(request, settings);
    if (hsts) set.headers[HSTS_HEADER] = hsts;
  });
}
