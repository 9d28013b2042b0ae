/** Cookies of a request and of a response, both through Bun's own cookie code (Bun.CookieMap, Bun.Cookie). */

/** The value of the request's cookie `name`; null when absent or empty. */
export function cookieOf(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  return new Bun.CookieMap(header).get(name) || null;
}

/** Where a cookie applies: its path, and whether it goes over https only. */
export interface CookieScope {
  path: string;
  secure: boolean;
}

/**
 * A Set-Cookie value. Every cookie Longbox sets holds a session, so it is HttpOnly and
 * SameSite=Lax; without a lifetime it is a browser-session cookie.
 */
export function setCookie(name: string, value: string, scope: CookieScope, lifetime?: { maxAge: number } | { expires: Date }): string {
  return new Bun.Cookie(name, value, { path: scope.path, secure: scope.secure, httpOnly: true, sameSite: "lax", ...lifetime }).serialize();
}
