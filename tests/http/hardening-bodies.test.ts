/**
 * Request bodies are bounded before they are parsed, and read only after the caller's
 * credentials passed on routes that need them (issue #10, item 2).
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, bearer } from "../helpers/auth";
import { endlessBody, fetchWithin } from "../helpers/request-bodies";
import { forEachDatabase } from "../helpers/server";

/** application.max_request_body_bytes in this suite; the default is 1 MiB. */
const LIMIT = 256 * 1024;

forEachDatabase(
  "bounded request bodies",
  (server) => {
    let token: string;
    beforeAll(async () => {
      token = (await adminSession(server())).token;
    });

    test("a declared length over the limit is a 413 on an open route", async () => {
      const password = "x".repeat(LIMIT * 4);
      const response = await server().json("POST", "/api/v1/auth/login", { username: "admin", password });
      expect(response.status).toBe(413);
      expect(response.body).toMatchObject({ error: "PayloadTooLarge" });
    });

    test("a chunked body that grows past the limit is a 413 without waiting for its end", async () => {
      const response = await fetchWithin(`${server().url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: endlessBody(`{"username":"admin","password":"${"y".repeat(LIMIT + 1024)}`),
      });
      expect(response === "timeout" ? "timeout" : response.status).toBe(413);
    });

    test("a route that needs credentials answers 401 before reading the body", async () => {
      const response = await fetchWithin(`${server().url}/api/v1/libraries`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: endlessBody(`{"name":"never ends","path":"/tmp`),
      });
      expect(response === "timeout" ? "timeout" : response.status).toBe(401);
    });

    test("an admin route answers 403 to a user before reading the body", async () => {
      await server().json(
        "POST",
        "/api/v1/users",
        { username: "reader", email: "reader@example.org", password: "correct horse battery", role: "user" },
        bearer(token),
      );
      const reader = await server().json("POST", "/api/v1/auth/login", { username: "reader", password: "correct horse battery" });
      const response = await fetchWithin(`${server().url}/api/v1/libraries`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(reader.body.token) },
        body: endlessBody(`{"name":"never ends","path":"/tmp`),
      });
      expect(response === "timeout" ? "timeout" : response.status).toBe(403);
    });

    test("a body within the limit still reaches the route once the caller is known", async () => {
      const response = await server().json("POST", "/api/v1/sharing-tags", { name: "bounded", description: "d".repeat(200) }, bearer(token));
      expect(response.status).toBe(201);
      const tooLarge = await server().json("POST", "/api/v1/sharing-tags", { name: "huge", description: "d".repeat(LIMIT) }, bearer(token));
      expect(tooLarge.status).toBe(413);
    });

    test("JSON nested 100,000 levels deep is a 400, on an open and on a protected route", async () => {
      const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
      for (const [path, headers] of [
        ["/api/v1/auth/login", {}],
        ["/api/v1/sharing-tags", bearer(token)],
      ] as const) {
        const response = await server().fetch(path, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: `{"username":${deep},"name":"n","password":"x"}`,
        });
        expect({ path, status: response.status }).toEqual({ path, status: 400 });
        expect(await response.json()).toMatchObject({ error: "BadRequest" });
      }
    });

    test("malformed JSON is still a 400", async () => {
      const response = await server().fetch("/api/v1/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"username":',
      });
      expect(response.status).toBe(400);
    });
  },
  { application: { max_request_body_bytes: LIMIT } },
);
