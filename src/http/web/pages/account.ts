/**
 * GET /account: the signed-in person's account. POST /account/password (change it; every
 * session ends and this browser gets a new one), /account/api-keys (create), /account/api-keys/:id/revoke,
 * /account/sign-out-everywhere (ends every session of the account, this one included).
 */
import { Elysia, t } from "elysia";
import { MIN_PASSWORD_LENGTH } from "../../../auth/passwords";
import type { Services } from "../../../services";
import { clearedSessionCookie, sessionCookie } from "../../browser-session";
import { IdParams } from "../../params";
import { apiKeySectionData, createApiKey, revokeApiKey, type ApiKeySection, type ApiKeySectionData } from "../api-key-routes";
import { CsrfOnlyBody, inputProblem, NoticeQuery } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { page, type Viewer } from "../views";

const NOTICES: Record<string, string> = { "password-changed": "Your password is changed. Other devices have been signed out." };

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
      async ({ viewer, body, request }) => {
        let user;
        try {
          user = await services.userAdministration.changeOwnPassword(viewer.user, body.currentPassword, body.newPassword);
        } catch (error) {
          return accountPage(viewer, { passwordError: inputProblem(error) }, 422);
        }
        const session = await services.browserSessions.start(user);
        return redirectTo(request, "/account?notice=password-changed", { "set-cookie": sessionCookie(request, trustProxy, session.token, session.expiresAt) });
      },
      {
        page: "user",
        body: t.Object({ currentPassword: t.String({ maxLength: 1024 }), newPassword: t.String({ maxLength: 1024 }), _csrf: t.Optional(t.String()) }),
      },
    )
    .post("/account/api-keys", ({ viewer, body, request }) => createApiKey(services, request, viewer, keySection(viewer), body.name), {
      page: "user",
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
        await services.browserSessions.endAll(viewer.user.id);
        return redirectTo(request, "/login?notice=signed-out", { "set-cookie": clearedSessionCookie(request, trustProxy) });
      },
      { page: "user", body: CsrfOnlyBody },
    );
}
