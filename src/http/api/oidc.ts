/**
 * OIDC single sign-on routes. The callback ends in a redirect to the UI's login page either way:
 * on success the login result travels in the URL fragment (browsers never send fragments to
 * servers, so tokens stay out of access logs), on failure an error code does.
 */
import { Elysia, t } from "elysia";
import type { LoginResult } from "../../auth/sessions";
import { DomainError } from "../../errors";
import type { Services } from "../../services";
import { publicOrigin } from "../client-address";
import { answers, documentedAnswers, mediaAnswer, Shape } from "./schemas";

const UI_LOGIN_PAGE = "/login";

function fragmentOf(result: LoginResult): string {
  const fields: Record<string, string> = { token: result.token, expires_at: result.expires_at, token_type: result.token_type };
  if (result.refresh_token && result.refresh_token_expires_at) {
    fields.refresh_token = result.refresh_token;
    fields.refresh_token_expires_at = result.refresh_token_expires_at;
  }
  return new URLSearchParams(fields).toString();
}

export function oidcRoutes(services: Services) {
  const { oidc, config } = services;
  const callbackUri = (request: Request, providerId: string) =>
    `${publicOrigin(request, config.application.base_url, config.application.trust_proxy)}/api/v1/auth/oidc/${providerId}/callback`;

  return new Elysia({ name: "oidc-routes" })
    .get("/api/v1/auth/oidc/providers", () => oidc.listProviders(), {
      response: answers({ 200: t.Array(Shape({ id: t.String(), name: t.String() })) }),
      detail: { summary: "Configured identity providers (open)", tags: ["auth"] },
    })
    .get(
      "/api/v1/auth/oidc/:provider/login",
      async ({ params, request, redirect }) => redirect((await oidc.beginSignIn(params.provider, callbackUri(request, params.provider))).href, 302),
      { detail: { summary: "Start single sign-on: redirect to the provider", tags: ["auth"], responses: documentedAnswers({ 302: mediaAnswer("To the provider") }, 404) } },
    )
    .get(
      "/api/v1/auth/oidc/:provider/callback",
      async ({ params, request, redirect }) => {
        try {
          const result = await oidc.completeSignIn(params.provider, new URL(request.url).searchParams);
          return redirect(`${UI_LOGIN_PAGE}#${fragmentOf(result)}`, 302);
        } catch (error) {
          if (!(error instanceof DomainError) || (error.kind !== "Unauthorized" && error.kind !== "Forbidden")) throw error;
          const failure = new URLSearchParams({ error: error.code ?? error.kind, error_description: error.message });
          return redirect(`${UI_LOGIN_PAGE}#${failure.toString()}`, 302);
        }
      },
      {
        detail: {
          summary: "Single sign-on callback: create or link the account, redirect to the UI",
          tags: ["auth"],
          responses: documentedAnswers({ 302: mediaAnswer("To the UI, the login result or the error in the fragment") }, 404),
        },
      },
    );
}
