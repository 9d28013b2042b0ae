/** First run: create the first admin while no user exists. Open route (there is no one to log in yet). */
import { Elysia, t } from "elysia";
import { toUserDto, type UserService } from "../../auth/users";
import { answers, UserDtoSchema } from "./schemas";

export function setupRoutes(users: UserService) {
  return new Elysia({ name: "setup-routes" }).post(
    "/api/v1/setup",
    async ({ body, set }) => {
      const user = await users.createFirstAdmin(body.username, body.email ?? null, body.password);
      set.status = 201;
      return toUserDto(user);
    },
    {
      body: t.Object({
        username: t.String({ minLength: 1, maxLength: 64 }),
        email: t.Optional(t.String({ maxLength: 320 })),
        password: t.String(),
      }),
      response: answers({ 201: UserDtoSchema }, 409, 422),
      detail: { summary: "Create the first admin account (only while no user exists)", tags: ["setup"] },
    },
  );
}
