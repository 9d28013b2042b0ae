/**
 * GET /account: the signed-in person's account. POST /account/password (change it; every
 * session ends and this browser gets a new one), /account/api-keys (create), /account/api-keys/:id/revoke,
 * /account/sign-out-everywhere (ends every session of the account, this one included).
 */
import { Elysia, t } from "elysia";
import { MIN_PASSWORD_LENGTH } from "../../../auth/passwords";
import { DomainError } from "../../../errors";
import type { Services } from "../../../services";
import { clearedSessionCookie, sessionCookie } from "../../browser-session";
import { clientIp } from "../../client-address";
import { IdParams } from "../../params";
import { apiKeySectionData, createApiKey, revokeApiKey, type ApiKeySection, type ApiKeySectionData } from "../api-key-routes";
import { CsrfOnlyBody, inputProblem, NoticeQuery } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { page, type Viewer } from "../views";

/** A wrong current password is a 401 from the password check; on this form it is a mistake to correct. */
function passwordProblem(error: unknown): string {
  if (error instanceof DomainError && error.kind === "Unauthorized") return "The current password is not right.";
  return inputProblem(error);
}

const NOTICES: Record<string, string> = {
  "password-changed": "Your password is changed. Other devices have been signed out and your API keys revoked, unless you kept them.",
};

export function accountPages(services: Services, guard: WebPageGuard) {
  const trustProxy = services.config.application.trust_proxy;

  const keySection = (viewer: Viewer): ApiKeySection => ({
    userId: viewer.user.id,
    owner: "you",
    basePath: "/account/api-keys",
    page: (apiKeys, status) => accountPage(viewer, { apiKeys }, status),
  });

  async function accountPage(viewer: Viewer, extra: { notice?: string; passwordError?: string; apiKeys?: ApiKeySectionData } = {}, status = 200) {
    const apiKeys = extra.apiKeys ?? (await apiKeySectionData(services, viewer, keySection(viewer)));
    return page("pages/account", { title: "Your account", viewer, passwordHint: `At least ${MIN_PASSWORD_LENGTH} characters.`, ...extra, apiKeys }, status);
  }

  return new Elysia({ name: "web-account-pages" })
    .use(guard)
    .get("/account", ({ viewer, query }) => accountPage(viewer, { notice: NOTICES[query.notice ?? ""] }), {
      page: "user",
      query: NoticeQuery,
    })
    .post(
      "/account/password",
      async ({ viewer, body, request, server }) => {
        let user;
        try {
          // The same change as PUT /api/v1/auth/me/password: the current password is checked
          // and throttled like a login, and every session and API key of the account ends.
          user = await services.passwordChanges.changeOwnPassword(viewer.user, {
            currentPassword: body.currentPassword,
            newPassword: body.newPassword,
            keepApiKeys: body.keepApiKeys === "on",
            clientIp: clientIp(request, server, trustProxy),
          });
        } catch (error) {
          return accountPage(viewer, { passwordError: passwordProblem(error) }, 422);
        }
        const session = await services.cookieSessions.start(user);
        return redirectTo(request, "/account?notice=password-changed", { "set-cookie": sessionCookie(request, trustProxy, session.token, session.expiresAt) });
      },
      {
        page: "credentials",
        body: t.Object({
          currentPassword: t.String({ maxLength: 1024 }),
          newPassword: t.String({ maxLength: 1024 }),
          keepApiKeys: t.Optional(t.Literal("on")),
          _csrf: t.Optional(t.String()),
        }),
      },
    )
    .post("/account/api-keys", ({ viewer, body, request }) => createApiKey(services, request, viewer, keySection(viewer), body.name), {
      page: "credentials",
      body: t.Object({ name: t.String({ maxLength: 200 }), _csrf: t.Optional(t.String()) }),
    })
    .post("/account/api-keys/:id/revoke", ({ viewer, params, request }) => revokeApiKey(services, request, viewer, keySection(viewer), params.id), {
      page: "user",
      params: IdParams,
      body: CsrfOnlyBody,
    })
    .post(
      "/account/sign-out-everywhere",
      async ({ viewer, request }) => {
        await services.cookieSessions.endAll(viewer.user.id);
        return redirectTo(request, "/login?notice=signed-out", { "set-cookie": clearedSessionCookie(request, trustProxy) });
      },
      { page: "user", body: CsrfOnlyBody },
    );
}
