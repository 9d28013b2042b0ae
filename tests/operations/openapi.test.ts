/** The OpenAPI document at /api/docs/json and its page at /api/docs: open, complete, secured. */
import { beforeAll, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import { join } from "node:path";
import { GENERATED_TYPES_PATH, typesOf } from "../../scripts/openapi-types";
import { adminSession, bearer } from "../helpers/auth";
import { checkAnswer } from "../helpers/openapi-answers";
import { rawQuery } from "../helpers/sql";
import { forEachDatabase } from "../helpers/server";

/** /api/v1 operations callable without credentials (the contract's open routes). */
const OPEN_OPERATIONS = [
  "post /api/v1/setup",
  "post /api/v1/auth/login",
  "post /api/v1/auth/refresh",
  "post /api/v1/auth/logout", // the refresh token in the body is the credential
  "post /api/v1/auth/register",
  "get /api/v1/auth/verify-email",
  "post /api/v1/auth/resend-verification",
  "get /api/v1/auth/oidc/providers",
  "get /api/v1/auth/oidc/{provider}/login",
  "get /api/v1/auth/oidc/{provider}/callback",
];

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  summary?: string;
  tags?: string[];
}

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  info: { title: string; version: string; description: string };
  components: {
    securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }>;
    schemas: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }>;
  };
}

const NO_BODY = new Set(["204", "302", "304"]);

/** The specification's shared shapes, as named components. */
const SPEC_COMPONENTS = [
  "BookDto",
  "SeriesDto",
  "LibraryDto",
  "ScanStatus",
  "ErrorGroupDto",
  "SharingTagDto",
  "PaginatedResponse_BookDto",
  "PaginatedResponse_SeriesDto",
  "ErrorBody",
  "LoginResult",
  "UserDto",
];

forEachDatabase("OpenAPI document", (server) => {
  let document: OpenApiDocument;
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: `${method} ${path}`, path, operation })),
    );

  beforeAll(async () => {
    const response = await server().fetch("/api/docs/json");
    expect(response.status).toBe(200);
    document = (await response.json()) as OpenApiDocument;
  });

  test("is OpenAPI 3.x, served without credentials, with the service's title and version", async () => {
    expect(document.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(document.info.title).toBe("Longbox API");
    const health = await server().json("GET", "/health");
    expect(document.info.version).toBe(health.body.version);
  });

  test("the page at /api/docs is an HTML viewer of the JSON document, without credentials", async () => {
    const page = await server().fetch("/api/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    const configuration = new HTMLRewriter();
    let viewerConfiguration: { url?: string } = {};
    configuration.on("[data-configuration]", {
      element(element) {
        viewerConfiguration = JSON.parse(element.getAttribute("data-configuration") ?? "{}");
      },
    });
    await configuration.transform(page).text();
    expect(viewerConfiguration.url).toBe("/api/docs/json");
  });

  test("lists the contract's paths, the documentation routes themselves excluded", () => {
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        "/health",
        "/api/v1/setup",
        "/api/v1/auth/login",
        "/api/v1/users/{id}",
        "/api/v1/libraries",
        "/api/v1/libraries/{id}/scan",
        "/api/v1/books",
        "/api/v1/books/{id}",
        "/api/v1/books/errors",
        "/api/v1/duplicates",
        "/api/v1/sharing-tags",
        "/api/v1/sharing-tags/{id}",
        "/api/v1/series/{id}/sharing-tags",
        "/api/v1/users/{id}/sharing-tags",
        "/api/v1/users/{id}/sharing-tags/{tagId}",
        "/api/v1/metrics",
      ]),
    );
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/api/docs"))).toEqual([]);
    // The web interface's HTML pages, forms and assets are no API: they are left out.
    expect(Object.keys(document.paths).filter((path) => /^\/(login|logout|setup|account|admin|read|series|books|static|icons)(\/|$)/.test(path) || path === "/")).toEqual([]);
    // A prefixed plugin's root route must be registered as "", not "/", or it is listed as "/prefix/".
    expect(Object.keys(document.paths).filter((path) => path.endsWith("/"))).toEqual([]);
  });

  test("declares the bearer, basic and API-key security schemes", () => {
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: "http", scheme: "bearer" }),
      basicAuth: expect.objectContaining({ type: "http", scheme: "basic" }),
      apiKeyAuth: expect.objectContaining({ type: "apiKey", in: "header", name: "X-API-Key" }),
    });
  });

  test("every /api/v1 operation requires credentials, except the open ones", () => {
    const anyCredential: Record<string, string[]>[] = [{ bearerAuth: [] }, { basicAuth: [] }, { apiKeyAuth: [] }];
    const v1 = operations().filter(({ path }) => path.startsWith("/api/v1/"));
    const open = v1.filter(({ operation }) => !operation.security).map(({ key }) => key);
    expect(open.sort()).toEqual([...OPEN_OPERATIONS].sort());
    for (const { key, operation } of v1) {
      if (operation.security) expect({ key, security: operation.security }).toEqual({ key, security: anyCredential });
    }
    expect(document.paths["/health"]!.get!.security).toBeUndefined();
    expect(Object.keys(document.paths["/health"]!.get!.responses ?? {})).toEqual(["200", "503"]);
  });

  test("every operation has a summary and a tag", () => {
    const undocumented = operations()
      .filter(({ operation }) => !operation.summary || !operation.tags?.length)
      .map(({ key }) => key);
    expect(undocumented).toEqual([]);
  });

  test("at least 95% of the operations describe their success answer with a schema; the others list their answers", () => {
    const all = operations();
    const successes = (operation: Operation) => Object.entries(operation.responses ?? {}).filter(([status]) => /^[23]/.test(status));
    // An answer without a body by definition (204, 302, 304) describes itself by its status.
    const described = all.filter(({ operation }) =>
      successes(operation).every(
        ([status, answer]) => NO_BODY.has(status) || Object.values(answer.content ?? {}).some((media) => media.schema !== undefined),
      ),
    );
    const withoutSuccess = all.filter(({ operation }) => successes(operation).length === 0).map(({ key }) => key);
    expect(withoutSuccess).toEqual([]);
    expect(described.length / all.length).toBeGreaterThanOrEqual(0.95);
  });

  test("the spec's shared shapes are named components; answers allow added fields; errors are the ErrorBody", () => {
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(SPEC_COMPONENTS));
    for (const name of SPEC_COMPONENTS) expect({ name, open: document.components.schemas[name]!.additionalProperties }).toEqual({ name, open: true });
    // /health's 503 is its own shape (the contract's), not an error body.
    const errorAnswers = operations().filter(({ path }) => path !== "/health").flatMap(({ key, operation }) =>
      Object.entries(operation.responses ?? {})
        .filter(([status]) => Number(status) >= 400)
        .map(([status, answer]) => ({ key, status, schema: answer.content?.["application/json"]?.schema })),
    );
    expect(errorAnswers.length).toBeGreaterThan(operations().length);
    for (const answer of errorAnswers) expect(answer).toEqual({ ...answer, schema: { $ref: "#/components/schemas/ErrorBody" } });
  });

  test("the Komga API, KOReader sync and OPDS are not in the document, which says where they are", () => {
    expect(Object.keys(document.paths).filter((path) => !path.startsWith("/api/v1/") && path !== "/health")).toEqual([]);
    expect(document.info.description).toContain("Komga");
    expect(document.info.description).toContain("/koreader");
    expect(document.info.description).toContain("/opds");
  });

  test("the tests' answer check names the operation and the field the document does not declare", async () => {
    const book = (await server().json("GET", "/api/v1/books/00000000-0000-4000-8000-000000000000")).body;
    expect(book.error).toBe("Unauthorized");
    const paged = { data: [], links: { first: "/", last: "/", self: "/", next: null, prev: null }, page: 1, pageSize: 50, total: 0, totalPages: 0 };
    await checkAnswer(server().url, "GET", "/api/v1/series?page=1", 200, "application/json", paged);
    const answer = checkAnswer(server().url, "GET", "/api/v1/series", 200, "application/json", { ...paged, seriesPosition: 3 });
    await expect(answer).rejects.toThrow("GET /api/v1/series answered 200 with an undeclared field /seriesPosition");
    const wrong = checkAnswer(server().url, "GET", "/api/v1/series", 200, "application/json", { ...paged, total: "none" });
    await expect(wrong).rejects.toThrow("GET /api/v1/series answered 200 with /total must be integer");
    const unlisted = checkAnswer(server().url, "GET", "/api/v1/series", 201, "application/json", paged);
    await expect(unlisted).rejects.toThrow("GET /api/v1/series answered 201");
  });

  test("a maintained validator (swagger-parser) finds the document valid", async () => {
    await SwaggerParser.validate(structuredClone(document) as unknown as Parameters<typeof SwaggerParser.validate>[0]);
  });

  test("the client types in docs/examples are generated from the current document (bun scripts/openapi-types.ts)", async () => {
    // tsc (npm test) compiles docs/examples/api-client.ts against them.
    expect(await Bun.file(join(import.meta.dir, "../..", GENERATED_TYPES_PATH)).text()).toBe(await typesOf(document));
  });

  test("an answer its route's schema refuses is a logged 500, not a 400 blaming the request", async () => {
    const { token } = await adminSession(server());
    const id = crypto.randomUUID();
    const now = server().kind === "postgres" ? new Date().toISOString() : Date.now();
    // A row the API never writes: its scanning configuration lacks the fields LibraryDto requires.
    await rawQuery(
      server(),
      "INSERT INTO libraries (id, name, path, default_reading_direction, series_strategy, scanning_config, created_at, updated_at) VALUES ($1, $2, $3, 'ltr', 'series_volume', $4, $5, $5)",
      id,
      "Malformed",
      `/nonexistent/${id}`,
      server().kind === "postgres" ? {} : "{}",
      now,
    );
    const answer = await server().json("GET", `/api/v1/libraries/${id}`, undefined, bearer(token));
    expect(answer.status).toBe(500);
    expect(answer.body.error).toBe("InternalServerError");
    const logged = server().logs.filter((line) => line.includes("an answer does not match its route's response schema"));
    expect(logged.length).toBe(1);
    // Where it failed, never the answer itself (an answer may hold a token or a key).
    expect(logged[0]).toContain("/scanningConfig");
    expect(logged[0]).not.toContain(`/nonexistent/${id}`);
  });
});
