/** Komga's signed-in user (v1 and v2), libraries, the header session's cookie, and logout. */
import { Elysia } from "elysia";
import { DomainError } from "../../errors";
import type { Services } from "../../services";
import { IdParams } from "../params";
import { cookieOf, setCookie } from "../cookies";
import { komgaAuth, komgaCookieScope, REMEMBER_ME_COOKIE, SESSION_COOKIE } from "./auth";
import { toKomgaLibrary, toKomgaUser } from "./dto";

export function komgaAccountRoutes(services: Services) {
  const { libraries, cookieSessions } = services;
  const me = { komga: true as const, detail: { summary: "Komga: the signed-in user (remember-me=true sets komga-remember-me)", tags: ["komga"] } };
  return new Elysia({ name: "komga-account-routes" })
    .use(komgaAuth(services))
    .get("/api/v2/users/me", ({ caller }) => toKomgaUser(caller.user), me)
    .get("/api/v1/users/me", ({ caller }) => toKomgaUser(caller.user), me)
    .get("/api/v1/libraries", async ({ caller }) => (await libraries.list(caller.user)).map(toKomgaLibrary), {
      komga: true,
      detail: { summary: "Komga: libraries", tags: ["komga"] },
    })
    .get("/api/v1/libraries/:id", async ({ caller, params: { id } }) => toKomgaLibrary(await libraries.get(caller.user, id)), {
      komga: true,
      params: IdParams,
      detail: { summary: "Komga: one library", tags: ["komga"] },
    })
    .get(
      "/api/v1/login/set-cookie",
      ({ caller, request, set }) => {
        if (!caller.sessionToken) throw new DomainError("BadRequest", "the request has no session to put into a cookie");
        set.headers["set-cookie"] = [setCookie(SESSION_COOKIE, caller.sessionToken, komgaCookieScope(services, request))];
        set.status = 204;
      },
      { komga: true, detail: { summary: "Komga: put the X-Auth-Token session into the KOMGA-SESSION cookie", tags: ["komga"] } },
    )
    .post(
      "/api/logout",
      async ({ request, set, caller }) => {
        // caller.sessionToken: also a session this very request started (a logout sent with Basic).
        const tokens = [caller.sessionToken, cookieOf(request, SESSION_COOKIE), cookieOf(request, REMEMBER_ME_COOKIE), request.headers.get("x-auth-token")];
        for (const token of new Set(tokens)) {
          if (token) await cookieSessions.end(token);
        }
        delete set.headers["x-auth-token"];
        const scope = komgaCookieScope(services, request);
        set.headers["set-cookie"] = [setCookie(SESSION_COOKIE, "", scope, { maxAge: 0 }), setCookie(REMEMBER_ME_COOKIE, "", scope, { maxAge: 0 })];
        set.status = 204;
      },
      { komga: "reads", detail: { summary: "Komga: end the session (cookie or X-Auth-Token) and remember-me", tags: ["komga"] } },
    );
}
