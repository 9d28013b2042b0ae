/**
 * GET /account: the signed-in person's account. POST /account/password (change it; every
 * session ends and this browser gets a new one), /account/api-keys (create), /account/api-keys/:id/revoke,
 * /account/koreader-key (generate a KOReader sync key, shown once), /account/koreader-key/remove,
 * /account/sign-out-everywhere (ends every session of the account, this one included).
 * Creating a credential needs an interactive sign-in (the `credentials` access level).
 */
import { Elysia, t } from "elysia";
import type { KoreaderKeyStatus } from "../../../auth/koreader-keys";
import { MIN_PASSWORD_LENGTH } from "../../../auth/passwords";
import { DomainError } from "../../../errors";
import type { Services } from "../../../services";
import { clearedSessionCookie, sessionCookie } from "../../browser-session";
import { clientIp, publicOrigin } from "../../client-address";
import { IdParams } from "../../params";
import { ApiKeyForm, apiKeySectionData, createApiKey, revokeApiKey, type ApiKeySection, type ApiKeySectionData } from "../api-key-routes";
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
  "koreader-key-removed": "Your KOReader sync key is removed: KOReader can no longer sync as you until you make a new one.",
};

/** The KOReader section: whether a sync key is set, the one just generated, where KOReader syncs. */
interface KoreaderSection {
  status: KoreaderKeyStatus;
  generated?: string;
  serverUrl: string;
}

export function accountPages(services: Services, guard: WebPageGuard) {
  const trustProxy = services.config.application.trust_proxy;

  const keySection = (viewer: Viewer, request: Request): ApiKeySection => ({
    userId: viewer.user.id,
    owner: "you",
    basePath: "/account/api-keys",
    page: (apiKeys, status) => accountPage(viewer, request, { apiKeys }, status),
  });

  const koreaderSection = async (viewer: Viewer, request: Request, generated?: string): Promise<KoreaderSection> => ({
    status: await services.koreaderKeys.status(viewer.user.id),
    generated,
    serverUrl: `${publicOrigin(request, services.config.application.base_url, trustProxy)}/koreader`,
  });

  async function accountPage(
    viewer: Viewer,
    request: Request,
    extra: { notice?: string; passwordError?: string; apiKeys?: ApiKeySectionData; generatedSyncKey?: string } = {},
    status = 200,
  ) {
    const { generatedSyncKey, ...rest } = extra;
    const apiKeys = extra.apiKeys ?? (await apiKeySectionData(services, viewer, keySection(viewer, request)));
    const koreader = services.config.koreader_api.enabled ? await koreaderSection(viewer, request, generatedSyncKey) : null;
    return page("pages/account", { title: "Your account", viewer, passwordHint: `At least ${MIN_PASSWORD_LENGTH} characters.`, ...rest, apiKeys, koreader }, status);
  }

  return new Elysia({ name: "web-account-pages" })
    .use(guard)
    .get("/account", ({ viewer, query, request }) => accountPage(viewer, request, { notice: NOTICES[query.notice ?? ""] }), {
      page: "user",
      query: NoticeQuery,
    })
    .post(
      "/account/password",
      async ({ viewer, body, request, server }) => {
        let user;
        try {
          // The same change as PUT /api/v1/auth/me/password: the current password is checked
          // and throttled like a login, and every session, API key and sync key of the account ends.
          user = await services.passwordChanges.changeOwnPassword(viewer.user, {
            currentPassword: body.currentPassword,
            newPassword: body.newPassword,
            keepApiKeys: body.keepApiKeys === "on",
            clientIp: clientIp(request, server, trustProxy),
          });
        } catch (error) {
          return accountPage(viewer, request, { passwordError: passwordProblem(error) }, 422);
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
    .post("/account/api-keys", ({ viewer, body, request }) => createApiKey(services, request, viewer, keySection(viewer, request), body), {
      page: "credentials",
      body: ApiKeyForm,
    })
    .post("/account/api-keys/:id/revoke", ({ viewer, params, request }) => revokeApiKey(services, request, viewer, keySection(viewer, request), params.id), {
      page: "user",
      params: IdParams,
      body: CsrfOnlyBody,
    })
    .post(
      "/account/koreader-key",
      async ({ viewer, request }) => accountPage(viewer, request, { generatedSyncKey: (await services.koreaderKeys.generate(viewer.user.id)).key }),
      { page: "credentials", body: CsrfOnlyBody },
    )
    .post(
      "/account/koreader-key/remove",
      async ({ viewer, request }) => {
        await services.koreaderKeys.clear(viewer.user.id);
        return redirectTo(request, "/account?notice=koreader-key-removed");
      },
      { page: "user", body: CsrfOnlyBody },
    )
    .post(
      "/account/sign-out-everywhere",
      async ({ viewer, request }) => {
        await services.cookieSessions.endAll(viewer.user.id);
        return redirectTo(request, "/login?notice=signed-out", { "set-cookie": clearedSessionCookie(request, trustProxy) });
      },
      { page: "user", body: CsrfOnlyBody },
    );
}
