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
 */
import { Elysia } from "elysia";

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

/** Adds the defaults a response does not set itself. */
export function withSecurityHeaders(response: Response): Response {
  const { headers } = response;
  for (const [name, value] of DEFAULTS) if (!headers.has(name)) headers.set(name, value);
  return response;
}

export function securityHeaders() {
  return new Elysia({ name: "security-headers" }).onAfterHandle({ as: "global" }, ({ responseValue, set }) => {
    if (responseValue instanceof Response) {
      withSecurityHeaders(responseValue);
      return;
    }
    for (const [name, value] of DEFAULTS) set.headers[name] ??= value;
  });
}
