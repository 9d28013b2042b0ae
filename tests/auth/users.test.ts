import { beforeAll, expect, test } from "bun:test";
import { PasswordHasher } from "../../src/auth/passwords";
import { forEachDatabase } from "../helpers/server";
import { adminSession, bearer, createUser, login, PASSWORD } from "../helpers/auth";

const CONFIGURED_ARGON2 = { memoryCost: 2048, timeCost: 2, parallelism: 2 };

forEachDatabase(
  "users, roles and passwords",
  (server) => {
    let adminToken: string;
    let adminId: string;
    beforeAll(async () => {
      const session = await adminSession(server());
      adminToken = session.token;
      adminId = session.user.id;
    });
    const asAdmin = (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(adminToken));

    test("admin creates, reads, updates and deletes a user", async () => {
      const created = await asAdmin("POST", "/api/v1/users", { username: "Carol", email: "carol@example.org", password: PASSWORD });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        username: "Carol",
        email: "carol@example.org",
        role: "user",
        emailVerified: true,
        disabled: false,
        // No language of their own yet: the web follows their browser (issue 35).
        locale: null,
        createdAt: expect.any(String),
      });
      const id = created.body.id;
      expect((await asAdmin("GET", `/api/v1/users/${id}`)).body).toEqual(created.body);
      const updated = await asAdmin("PUT", `/api/v1/users/${id}`, { email: "carol@example.net", role: "admin" });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ email: "carol@example.net", role: "admin" });
      expect((await asAdmin("DELETE", `/api/v1/users/${id}`)).status).toBe(204);
      expect((await asAdmin("GET", `/api/v1/users/${id}`)).status).toBe(404);
      expect((await asAdmin("GET", "/api/v1/users/not-a-uuid")).status).toBe(400);
      expect((await asAdmin("DELETE", `/api/v1/users/${id}`)).status).toBe(404);
    });

    test("duplicates (of any case) are 409; bad input is 400; a password under 8 characters is 422", async () => {
      await createUser(server(), adminToken, "dave");
      expect((await asAdmin("POST", "/api/v1/users", { username: "dave", password: PASSWORD })).status).toBe(409);
      expect((await asAdmin("POST", "/api/v1/users", { username: "dave2", email: "dave@example.org", password: PASSWORD })).status).toBe(409);
      // Regardless of case, in usernames and emails alike; an admin can still change the case of a user's own email.
      expect((await asAdmin("POST", "/api/v1/users", { username: "DAVE", password: PASSWORD })).status).toBe(409);
      expect((await asAdmin("POST", "/api/v1/users", { username: "dave3", email: "Dave@Example.ORG", password: PASSWORD })).status).toBe(409);
      const dave = (await asAdmin("GET", "/api/v1/users?pageSize=500")).body.data.find((user: { username: string }) => user.username === "dave");
      expect((await asAdmin("PUT", `/api/v1/users/${dave.id}`, { email: "DAVE@example.org" })).status).toBe(200);
      expect((await asAdmin("POST", "/api/v1/users", { username: "x", password: PASSWORD, role: "root" })).status).toBe(400);
      const short = await asAdmin("POST", "/api/v1/users", { username: "eve", password: "1234567" });
      expect(short.status).toBe(422);
      expect(short.body).toMatchObject({ error: "UnprocessableEntity", details: { fields: { password: expect.any(String) } } });
      expect((await asAdmin("POST", "/api/v1/users", { username: "eve", password: "12345678" })).status).toBe(201);
    });

    test("concurrent creations of one name in different cases: exactly one succeeds, the others are 409", async () => {
      const spellings = ["zed", "ZED", "Zed", "zEd", "zeD", "ZEd"];
      const answers = await Promise.all(spellings.map((username) => asAdmin("POST", "/api/v1/users", { username, password: PASSWORD })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const answer of answers.filter((answer) => answer.status === 409)) expect(answer.body.error).toBe("Conflict");
    });

    test("the users list is paged with the spec's PaginatedResponse; pageSize over 500 is 400", async () => {
      for (const name of ["p1", "p2", "p3", "p4"]) await createUser(server(), adminToken, name);
      const total = (await asAdmin("GET", "/api/v1/users")).body.total;
      const page = await asAdmin("GET", "/api/v1/users?page=2&pageSize=2&sort=username,asc");
      expect(page.status).toBe(200);
      const totalPages = Math.ceil(total / 2);
      expect(page.body).toMatchObject({ page: 2, pageSize: 2, total, totalPages });
      expect(page.body.data).toHaveLength(2);
      expect(page.body.links).toEqual({
        first: "/api/v1/users?page=1&pageSize=2&sort=username%2Casc",
        last: `/api/v1/users?page=${totalPages}&pageSize=2&sort=username%2Casc`,
        self: "/api/v1/users?page=2&pageSize=2&sort=username%2Casc",
        next: "/api/v1/users?page=3&pageSize=2&sort=username%2Casc",
        prev: "/api/v1/users?page=1&pageSize=2&sort=username%2Casc",
      });
      const lastPage = await asAdmin("GET", `/api/v1/users?page=${totalPages}&pageSize=2`);
      expect(lastPage.body.links.next).toBeNull();
      const first = await asAdmin("GET", "/api/v1/users");
      expect(first.body).toMatchObject({ page: 1, pageSize: 50 });
      expect(first.body.links.prev).toBeNull();
      for (const query of ["pageSize=501", "page=0", "page=abc", "pageSize=0"]) {
        const response = await asAdmin("GET", `/api/v1/users?${query}`);
        expect({ query, status: response.status }).toEqual({ query, status: 400 });
      }
      expect((await asAdmin("GET", "/api/v1/users?pageSize=500")).status).toBe(200);
    });

    test("non-admins get 403 on user administration and cannot raise their own role", async () => {
      const id = await createUser(server(), adminToken, "frank");
      const frank = await login(server(), "frank");
      for (const [method, path, body] of [
        ["GET", "/api/v1/users"],
        ["POST", "/api/v1/users", { username: "x", password: PASSWORD }],
        ["GET", `/api/v1/users/${id}`],
        ["PUT", `/api/v1/users/${id}`, { role: "admin" }],
        ["DELETE", `/api/v1/users/${adminId}`],
      ] as const) {
        const response = await server().json(method, path, body, bearer(frank.token));
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      }
      expect((await server().json("GET", "/api/v1/auth/me", undefined, bearer(frank.token))).body.role).toBe("user");
    });

    test("the last admin can be neither deleted, demoted nor disabled; with a second admin it can", async () => {
      for (const [method, body] of [
        ["DELETE", undefined],
        ["PUT", { role: "user" }],
        ["PUT", { disabled: true }],
      ] as const) {
        const response = await asAdmin(method, `/api/v1/users/${adminId}`, body);
        expect({ method, body, status: response.status }).toEqual({ method, body, status: 409 });
      }
      const secondId = await createUser(server(), adminToken, "second-admin", "admin");
      const demoted = await asAdmin("PUT", `/api/v1/users/${secondId}`, { role: "user" });
      expect(demoted.body.role).toBe("user");
      // Now the first admin is the last one again.
      expect((await asAdmin("DELETE", `/api/v1/users/${adminId}`)).status).toBe(409);
      await asAdmin("PUT", `/api/v1/users/${secondId}`, { role: "admin" });
      const second = await login(server(), "second-admin");
      expect((await server().json("PUT", `/api/v1/users/${secondId}`, { role: "user" }, bearer(second.token))).status).toBe(200);
      // The role change applies at once to the existing token.
      expect((await server().json("GET", "/api/v1/users", undefined, bearer(second.token))).status).toBe(403);
    });

    test("PUT with password is the admin reset: the old password stops working, the new one works; 422 under 8", async () => {
      const id = await createUser(server(), adminToken, "grace");
      expect((await asAdmin("PUT", `/api/v1/users/${id}`, { password: "short" })).status).toBe(422);
      expect((await asAdmin("PUT", `/api/v1/users/${id}`, { password: "the new password" })).status).toBe(200);
      expect((await server().json("POST", "/api/v1/auth/login", { username: "grace", password: PASSWORD })).status).toBe(401);
      expect((await server().json("POST", "/api/v1/auth/login", { username: "grace", password: "the new password" })).status).toBe(200);
    });

    test("passwords are hashed with Argon2id and the configured memory, time and parallelism", async () => {
      const id = await createUser(server(), adminToken, "heidi");
      const stored = await server().server.services.repositories.users.findById(id);
      const { memoryCost, timeCost, parallelism } = CONFIGURED_ARGON2;
      expect(stored?.passwordHash).toStartWith(`$argon2id$v=19$m=${memoryCost},t=${timeCost},p=${parallelism}$`);
    });

    test("a hash made with older parameters is upgraded at the next successful login, not at a failed one", async () => {
      const id = await createUser(server(), adminToken, "ivan");
      const repositories = server().server.services.repositories;
      const legacy = await new PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 }).hash(PASSWORD);
      await repositories.users.update(id, { passwordHash: legacy });
      await server().json("POST", "/api/v1/auth/login", { username: "ivan", password: "wrong password" });
      expect((await repositories.users.findById(id))?.passwordHash).toBe(legacy);
      await login(server(), "ivan");
      const upgraded = (await repositories.users.findById(id))?.passwordHash;
      expect(upgraded).toStartWith("$argon2id$v=19$m=2048,t=2,p=2$");
      await login(server(), "ivan");
    });
  },
  {
    auth: {
      argon2_memory_cost: CONFIGURED_ARGON2.memoryCost,
      argon2_time_cost: CONFIGURED_ARGON2.timeCost,
      argon2_parallelism: CONFIGURED_ARGON2.parallelism,
      login_max_failures: 1000,
    },
  },
);
