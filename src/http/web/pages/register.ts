/**
 * Self-service registration, when auth.registration_enabled: GET/POST /register, and GET/POST
 * /register/resend for a new email-verification link. The link itself is the API's
 * /api/v1/auth/verify-email, which sends browsers on to /login with a notice. Without email
 * confirmation the new account is signed in at once.
 */
import { Elysia, t } from "elysia";
import { DomainError } from "../../../errors";
import type { Services } from "../../../services";
import { sessionCookie } from "../../browser-session";
import { requestOrigin } from "../../client-address";
import { inputProblem, optionalText } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import type { Translator } from "../../../i18n/translator";
import { page } from "../views";

export function registrationPages(services: Services, guard: WebPageGuard) {
  const { auth, application } = services.config;
  const common = (translator: Translator) => ({ title: translator.t("register.title"), viewer: null, translator, emailRequired: auth.email_confirmation_required });
  const assertEnabled = () => {
    if (!auth.registration_enabled) throw new DomainError("NotFound", "self-service registration is not enabled on this server");
  };

  return new Elysia({ name: "web-registration-pages" })
    .use(guard)
    .get(
      "/register",
      ({ translator }) => {
        assertEnabled();
        return page("pages/register", common(translator));
      },
      { visitor: true },
    )
    .post(
      "/register",
      async ({ body, translator, request }) => {
        assertEnabled();
        let user;
        try {
          user = await services.registration.register(
            { username: body.username, email: optionalText(body.email), password: body.password },
            requestOrigin(request, application.trust_proxy),
          );
        } catch (error) {
          return page("pages/register", { ...common(translator), error: inputProblem(error, translator), username: body.username, email: body.email }, 422);
        }
        if (auth.email_confirmation_required) return redirectTo(request, "/login?notice=registered");
        const session = await services.cookieSessions.start(user);
        return redirectTo(request, "/", { "set-cookie": sessionCookie(request, application.trust_proxy, session.token, session.expiresAt) });
      },
      {
        visitor: true,
        body: t.Object({ username: t.String({ maxLength: 64 }), email: t.Optional(t.String({ maxLength: 320 })), password: t.String({ maxLength: 1024 }) }),
      },
    )
    .get(
      "/register/resend",
      ({ translator }) => {
        assertEnabled();
        return page("pages/resend-verification", { ...common(translator), title: translator.t("resend.title") });
      },
      { visitor: true },
    )
    .post(
      "/register/resend",
      async ({ body, translator, request }) => {
        assertEnabled();
        await services.registration.resendVerification(body.email, requestOrigin(request, application.trust_proxy));
        return page("pages/resend-verification", { ...common(translator), title: translator.t("resend.title"), sent: true });
      },
      { visitor: true, body: t.Object({ email: t.String({ maxLength: 320 }) }) },
    );
}
