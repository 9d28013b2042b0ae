/**
 * Signing in and out in the browser: GET/POST /login (password; OIDC provider buttons; the OIDC
 * landing at /login#token=... is handled by static/js/oidc-landing.js), POST /login/token (that
 * script trades the OIDC login result for the session cookie), POST /logout.
 */
import { Elysia, t } from "elysia";
import { DomainError } from "../../../errors";
import type { Services } from "../../../services";
import { clearedSessionCookie, sessionCookie, sessionCookieOf } from "../../browser-session";
import { clientIp } from "../../client-address";
import { CsrfOnlyBody } from "../forms";
import { sameSitePath, redirectTo, type WebPageGuard } from "../page-guard";
import { hasMessage } from "../../../i18n/catalogs";
import type { Translator } from "../../../i18n/translator";
import { page } from "../views";

/** The messages of the notices the sign-in page shows after a redirect. */
const LOGIN_NOTICES: Record<string, string> = {
  verified: "login.notice.verified",
  "verification-failed": "login.notice.verificationFailed",
  "signed-out": "login.notice.signedOut",
  registered: "login.notice.registered",
};

/** A refused sign-in in the person's words: by the error's code (a disabled account) or kind. */
function signInProblem(error: DomainError, { t }: Translator): string {
  const code = error.code ?? error.kind;
  return t(hasMessage(`login.error.${code}`) ? `login.error.${code}` : `apiError.${error.kind}`);
}

export function sessionPages(services: Services, guard: WebPageGuard) {
  const trustProxy = services.config.application.trust_proxy;

  const loginPage = (translator: Translator, data: { next: string; notice?: string; error?: string; username?: string }, status = 200) =>
    page(
      "pages/login",
      {
        title: translator.t("login.title"),
        viewer: null,
        translator,
        providers: services.oidc.listProviders(),
        registrationEnabled: services.config.auth.registration_enabled,
        ...data,
      },
      status,
    );

  /** Sets the cookie of a new session and sends the browser on (a full load: the page needs its CSRF token). */
  async function signIn(request: Request, user: Parameters<Services["cookieSessions"]["start"]>[0], next: string): Promise<Response> {
    const session = await services.cookieSessions.start(user);
    return redirectTo(request, next, { "set-cookie": sessionCookie(request, trustProxy, session.token, session.expiresAt) });
  }

  return new Elysia({ name: "web-session-pages" })
    .use(guard)
    .get(
      "/login",
      ({ viewer, translator, query, request }) => {
        const next = sameSitePath(query.next);
        if (viewer) return redirectTo(request, next);
        const notice = query.verified ? LOGIN_NOTICES.verified : query.verification ? LOGIN_NOTICES["verification-failed"] : LOGIN_NOTICES[query.notice ?? ""];
        return loginPage(translator, { next, notice: notice && translator.t(notice) });
      },
      { visitor: true, query: t.Object({ next: t.Optional(t.String()), verified: t.Optional(t.String()), verification: t.Optional(t.String()), notice: t.Optional(t.String()) }) },
    )
    .post(
      "/login",
      async ({ body, translator, request, server }) => {
        const next = sameSitePath(body.next);
        try {
          const user = await services.login.verifyPassword(body.username, body.password, clientIp(request, server, trustProxy));
          return await signIn(request, user, next);
        } catch (error) {
          if (!(error instanceof DomainError) || !["Unauthorized", "Forbidden", "TooManyRequests"].includes(error.kind)) throw error;
          const status = error.kind === "Unauthorized" ? 401 : error.kind === "Forbidden" ? 403 : 429;
          return loginPage(translator, { next, error: signInProblem(error, translator), username: body.username }, status);
        }
      },
      {
        visitor: true,
        body: t.Object({
          username: t.String({ maxLength: 256 }),
          password: t.String({ maxLength: 1024 }),
          next: t.Optional(t.String({ maxLength: 2048 })),
        }),
      },
    )
    .post(
      "/login/token",
      async ({ body, request }) => {
        // The OIDC callback put a login result in the fragment of /login; the page's script
        // sends the access token here. Its refresh token (if any) is revoked: the cookie
        // session starts a family of its own.
        const caller = await services.authenticator.authenticate({ authorization: `Bearer ${body.token}`, apiKeyHeader: null, clientIp: () => "" });
        if (!caller || caller.via !== "jwt") throw new DomainError("Unauthorized", "the sign-in token is invalid or expired");
        if (body.refresh_token) await services.sessions.end(body.refresh_token);
        const session = await services.cookieSessions.start(caller.user);
        return new Response(null, {
          status: 204,
          headers: { "set-cookie": sessionCookie(request, trustProxy, session.token, session.expiresAt) },
        });
      },
      { visitor: true, body: t.Object({ token: t.String({ maxLength: 4096 }), refresh_token: t.Optional(t.String({ maxLength: 256 })) }) },
    )
    .post(
      "/logout",
      async ({ request }) => {
        const token = sessionCookieOf(request);
        if (token) await services.cookieSessions.end(token);
        return redirectTo(request, "/login?notice=signed-out", { "set-cookie": clearedSessionCookie(request, trustProxy) });
      },
      { page: "user", body: CsrfOnlyBody },
    );
}
