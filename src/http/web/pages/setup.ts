/**
 * First run, step one: GET/POST /setup creates the first admin while no user exists, signs them
 * in and goes on to step two, /setup/library (the first library, ./admin/libraries.ts).
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../../services";
import { sessionCookie } from "../../browser-session";
import { formProblem, optionalText } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { page } from "../views";

export function setupPage(services: Services, guard: WebPageGuard) {
  const trustProxy = services.config.application.trust_proxy;
  return new Elysia({ name: "web-setup-page" })
    .use(guard)
    .get(
      "/setup",
      async ({ translator, request }) => {
        if (!(await services.users.setupNeeded())) return redirectTo(request, "/login");
        return page("pages/setup", { title: translator.t("setup.title"), viewer: null, translator });
      },
      { visitor: true },
    )
    .post(
      "/setup",
      async ({ body, translator, request }) => {
        try {
          const admin = await services.users.createFirstAdmin(body.username, optionalText(body.email), body.password);
          const session = await services.cookieSessions.start(admin);
          return redirectTo(request, "/setup/library", { "set-cookie": sessionCookie(request, trustProxy, session.token, session.expiresAt) });
        } catch (error) {
          const problem = formProblem(error, translator);
          const refused = { error: problem.message, fieldErrors: problem.fields, username: body.username, email: body.email };
          return page("pages/setup", { title: translator.t("setup.title"), viewer: null, translator, ...refused }, 422);
        }
      },
      {
        visitor: true,
        body: t.Object({
          username: t.String({ maxLength: 64 }),
          email: t.Optional(t.String({ maxLength: 320 })),
          password: t.String({ maxLength: 1024 }),
        }),
      },
    );
}
