/**
 * Sign-in and account routes under /api/v1/auth: login, refresh, logout, register,
 * verify-email, resend-verification, me and the change of one's own password. Login and refresh answer the specification's login
 * result (snake_case by contract).
 */
import { Elysia, t } from "elysia";
import { toUserDto } from "../../auth/users";
import { invalidFields } from "../../errors";
import type { Services } from "../../services";
import { acceptNames } from "../accept";
import { authPlugin } from "../auth-plugin";
import { clientIp, requestOrigin } from "../client-address";
import { answers, LoginResultSchema, NoContent, Shape, UserDtoSchema } from "./schemas";

/** The contract accepts the spec's snake_case field and the camelCase spelling. */
const refreshTokenBody = t.Object({
  refresh_token: t.Optional(t.String({ maxLength: 256 })),
  refreshToken: t.Optional(t.String({ maxLength: 256 })),
});

function refreshTokenOf(body: { refresh_token?: string; refreshToken?: string }): string {
  const token = body.refresh_token ?? body.refreshToken;
  if (token === undefined) throw invalidFields("BadRequest", { refresh_token: "is required" });
  return token;
}

const acceptsHtml = (request: Request) => acceptNames(request, "text/html");

export function authRoutes(services: Services) {
  const trustProxy = services.config.application.trust_proxy;
  return new Elysia({ name: "auth-routes" })
    .use(authPlugin(services))
    .post(
      "/api/v1/auth/login",
      ({ body, request, server }) => services.login.login(body.username, body.password, clientIp(request, server, trustProxy)),
      {
        body: t.Object({ username: t.String({ maxLength: 256 }), password: t.String({ maxLength: 1024 }) }),
        response: answers({ 200: LoginResultSchema }, 401, 403, 429),
        detail: { summary: "Sign in with username and password", tags: ["auth"] },
      },
    )
    .post("/api/v1/auth/refresh", ({ body }) => services.sessions.refresh(refreshTokenOf(body)), {
      body: refreshTokenBody,
      response: answers({ 200: LoginResultSchema }, 401, 404),
      detail: { summary: "Rotate a refresh token: a new access token and a new refresh token", tags: ["auth"] },
    })
    .post(
      "/api/v1/auth/logout",
      async ({ body, set }) => {
        await services.sessions.end(refreshTokenOf(body));
        set.status = 204;
      },
      { body: refreshTokenBody, response: answers({ 204: NoContent }), detail: { summary: "Revoke a refresh token", tags: ["auth"] } },
    )
    .post(
      "/api/v1/auth/register",
      async ({ body, request, set }) => {
        const user = await services.registration.register(
          { username: body.username, email: body.email ?? null, password: body.password },
          requestOrigin(request, trustProxy),
        );
        set.status = 201;
        return toUserDto(user);
      },
      {
        body: t.Object({
          username: t.String({ minLength: 1, maxLength: 64 }),
          email: t.Optional(t.String({ maxLength: 320 })),
          password: t.String({ maxLength: 1024 }),
        }),
        response: answers({ 201: UserDtoSchema }, 403, 409, 422),
        detail: { summary: "Register an account (when auth.registration_enabled)", tags: ["auth"] },
      },
    )
    .get(
      "/api/v1/auth/verify-email",
      async ({ query, request, redirect }) => {
        try {
          const user = await services.registration.verifyEmail(query.token);
          // A browser's redirect is a Response, outside the JSON answer's type (declared as the 302).
          return acceptsHtml(request) ? (redirect("/login?verified=1", 302) as never) : { emailVerified: true, user: toUserDto(user) };
        } catch (error) {
          if (acceptsHtml(request)) return redirect("/login?verification=failed", 302) as never;
          throw error;
        }
      },
      {
        query: t.Object({ token: t.String({ maxLength: 256 }) }),
        response: answers({ 200: Shape({ emailVerified: t.Boolean(), user: UserDtoSchema }), 302: NoContent }),
        detail: { summary: "Follow an email verification link", tags: ["auth"] },
      },
    )
    .post(
      "/api/v1/auth/resend-verification",
      async ({ body, request, set }) => {
        await services.registration.resendVerification(body.email, requestOrigin(request, trustProxy));
        set.status = 202;
      },
      {
        body: t.Object({ email: t.String({ maxLength: 320 }) }),
        response: answers({ 202: NoContent }),
        detail: { summary: "Send a new verification link (always 202)", tags: ["auth"] },
      },
    )
    .get("/api/v1/auth/me", ({ caller }) => toUserDto(caller.user), {
      auth: "user",
      response: answers({ 200: UserDtoSchema }),
      detail: { summary: "The signed-in user", tags: ["auth"] },
    })
    .patch("/api/v1/auth/me", async ({ caller, body }) => toUserDto(await services.users.setLocale(caller.user, body.locale)), {
      auth: "user",
      body: t.Object({ locale: t.Union([t.String({ maxLength: 35 }), t.Null()]) }),
      response: answers({ 200: UserDtoSchema }, 422),
      detail: { summary: "Change your own settings: the language of the web interface and of your emails (null follows the browser)", tags: ["auth"] },
    })
    .put(
      "/api/v1/auth/me/password",
      ({ caller, body, request, server }) =>
        services.passwordChanges.changeOwn(caller.user, {
          currentPassword: body.currentPassword,
          newPassword: body.newPassword,
          keepApiKeys: body.keepApiKeys ?? false,
          clientIp: clientIp(request, server, trustProxy),
        }),
      {
        auth: "credentials",
        body: t.Object({
          currentPassword: t.String({ maxLength: 1024 }),
          newPassword: t.String({ maxLength: 1024 }),
          keepApiKeys: t.Optional(t.Boolean()),
        }),
        response: answers({ 200: LoginResultSchema }, 422, 429),
        detail: {
          summary: "Change your password: ends your other sessions and (unless keepApiKeys) your API keys and KOReader sync key; answers a new session",
          tags: ["auth"],
        },
      },
    );
}
