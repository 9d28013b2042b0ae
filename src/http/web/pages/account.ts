/**
 * GET /account: the signed-in person's account. POST /account/password (change it; every
 * session ends and this browser gets a new one), /account/api-keys (create), /account/api-keys/:id/revoke,
 * /account/koreader-key (generate a KOReader sync key, shown once), /account/koreader-key/remove,
 * /account/sign-out-everywhere (ends every session of the account, this one included),
 * /account/language (the interface's and the emails' language, or the browser's).
 * Creating a credential needs an interactive sign-in (the `credentials` access level).
 */
import { Elysia, t } from "elysia";
import type { KoreaderKeyStatus } from "../../../auth/koreader-keys";
import { DomainError } from "../../../errors";
import { AVAILABLE_LOCALES, languageName } from "../../../i18n/catalogs";
import type { Translator } from "../../../i18n/translator";
import type { Services } from "../../../services";
import { clearedSessionCookie, sessionCookie } from "../../browser-session";
import { clientIp, publicOrigin } from "../../client-address";
import { IdParams } from "../../params";
import { ApiKeyForm, apiKeySectionData, createApiKey, revokeApiKey, type ApiKeySection, type ApiKeySectionData } from "../api-key-routes";
import { CsrfOnlyBody, inputProblem, noticeMessage, NoticeQuery } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { page, type Viewer } from "../views";

/** A wrong current password is a 401 from the password check; on this form it is a mistake to correct. */
function passwordProblem(error: unknown, translator: Translator): string {
  if (error instanceof DomainError && error.kind === "Unauthorized") return translator.t("account.password.wrongCurrent");
  return inputProblem(error, translator);
}

/** The messages of the notices `?notice=` names. */
const NOTICES: Record<string, string> = {
  "password-changed": "account.notice.passwordChanged",
  "koreader-key-removed": "account.notice.koreaderKeyRemoved",
  "language-saved": "account.notice.languageSaved",
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
    owner: null,
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
    const languages = AVAILABLE_LOCALES.map((locale) => ({ locale, name: languageName(locale) }));
    return page("pages/account", { title: viewer.translator.t("account.title"), viewer, languages, ...rest, apiKeys, koreader }, status);
  }

  return new Elysia({ name: "web-account-pages" })
    .use(guard)
    .get("/account", ({ viewer, query, request }) => accountPage(viewer, request, { notice: noticeMessage(NOTICES, query.notice, viewer.translator) }), {
      page: "user",
      query: NoticeQuery,
    })
    .post(
      "/account/language",
      async ({ viewer, body, request }) => {
        // "" is the select's "the browser's language"; an unknown locale is refused by setLocale.
        await services.users.setLocale(viewer.user, body.locale || null);
        return redirectTo(request, "/account?notice=language-saved");
      },
      { page: "user", body: t.Object({ locale: t.String({ maxLength: 35 }), _csrf: t.Optional(t.String()) }) },
    )
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
          return accountPage(viewer, request, { passwordError: passwordProblem(error, viewer.translator) }, 422);
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
