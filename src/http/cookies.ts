/** Cookies of a request, parsed by Bun's own cookie parser (Bun.CookieMap). */

/** The value of the request's cookie `name`; null when absent or empty. */
export function cookieOf(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  return new Bun.CookieMap(header).get(name) || null;
}
