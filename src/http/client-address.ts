/**
 * Where a request comes from (the client IP, for throttling) and the origin it was addressed to
 * (for links and redirect URIs when application.base_url is not set). Proxy headers are honoured
 * only with application.trust_proxy: otherwise any client could claim any address.
 */
import type { Server } from "bun";

export function clientIp(request: Request, server: Server<unknown> | null, trustProxy: boolean): string {
  if (trustProxy) {
    // The last hop is the one the trusted proxy added; earlier ones are whatever the client sent
    // (nginx's $proxy_add_x_forwarded_for appends to the client's own header).
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}

/** The scheme the client used: X-Forwarded-Proto's first value when the proxy is trusted, else the request's own (no URL parse: this runs for every answer). */
export function requestScheme(request: Request, trustProxy: boolean): "http" | "https" {
  const proto = trustProxy ? request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() : undefined;
  if (proto === "http" || proto === "https") return proto;
  return request.url.startsWith("https:") ? "https" : "http";
}

export function requestOrigin(request: Request, trustProxy: boolean): string {
  const url = new URL(request.url);
  if (!trustProxy) return url.origin;
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const scheme = requestScheme(request, true);
  // Built anew rather than by setting URL.host, which keeps the old port when the forwarded
  // host names none (https://books.example.org:8080 instead of https://books.example.org).
  try {
    return new URL(`${scheme}://${host || url.host}`).origin;
  } catch {
    return url.origin;
  }
}

/**
 * application.base_url when configured, else the origin the request was addressed to: scheme,
 * host and any path prefix, without a trailing slash.
 */
export function publicOrigin(request: Request, baseUrl: string, trustProxy: boolean): string {
  return baseUrl ? baseUrl.replace(/\/+$/, "") : requestOrigin(request, trustProxy);
}

/**
 * The path prefix of the public address (`/longbox` for application.base_url
 * `https://host/longbox`; empty without one): a reverse proxy that strips it forwards requests
 * without it, so paths sent back to clients must put it back.
 */
export function publicPathPrefix(baseUrl: string): string {
  return baseUrl ? new URL(baseUrl).pathname.replace(/\/+$/, "") : "";
}
