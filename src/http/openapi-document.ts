/**
 * The OpenAPI document of /api/v1 (and /health), built from the routes' own schemas by
 * @elysiajs/openapi's generator, then completed here:
 * - only /api/v1 and /health stay: the Komga-compatible API, KOReader sync and OPDS follow
 *   other contracts and are described in docs (the document's description says where);
 * - every schema with a `$id` (src/http/api/schemas.ts) becomes a named component, referenced
 *   where it is used; two different schemas under one name are refused at once;
 * - the error answers every route gives by its own options are added: 400 when it takes
 *   parameters or a body, 401 and 403 when it needs credentials (403: a reader API key, an
 *   admin-only route, an interactive sign-in); each error answer is the ErrorBody component;
 * - a schema-less answer (a 204) loses the generator's invalid content entry; a nullable enum
 *   lists null among its values.
 */
import { toOpenAPISchema, unwrapSchema } from "@elysiajs/openapi/openapi";
import { Kind, type TSchema } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";
import type { OpenAPIV3_1 } from "openapi-types";
import { ErrorBodySchema } from "./api/schemas";

type Json = Record<string, unknown>;
type Responses = Record<string, { description?: string; content?: Record<string, unknown> }>;
type Operation = { security?: unknown[]; parameters?: unknown[]; requestBody?: unknown; responses?: Responses };

const ERROR_BODY_REF = { $ref: "#/components/schemas/ErrorBody" };
const ERROR_DESCRIPTIONS: Record<string, string> = {
  "400": "The request does not match its schema (details.fields names the fields)",
  "401": "No valid credentials",
  "403": "The credentials may not do this",
  "404": "Not found, or not visible to the caller",
  "409": "Conflicts with the current state",
  "413": "The body is too large",
  "422": "Well-formed but refused (details.fields names the fields)",
  "429": "Too many attempts (see Retry-After)",
};
const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);
/** The paths this document describes; the others follow other contracts. */
const DOCUMENTED_PATH = /^\/(api\/v1\/|health$)/;

export const OTHER_CONTRACTS =
  "The Komga-compatible API (under the configured komga_api.prefix), KOReader sync (/koreader) and OPDS (/opds) follow their own " +
  "protocols and are not in this document: see docs/komga-api.md and docs/api.md.";

export function openApiPathsAndSchemas(app: AnyElysia): { paths: OpenAPIV3_1.PathsObject; schemas: Record<string, Json> } {
  const generated = toOpenAPISchema(app, undefined, undefined, undefined, "3.1.0");
  const schemas: Record<string, Json> = { ...(generated.components.schemas as Record<string, Json>) };
  const paths: Record<string, Record<string, Operation>> = {};
  for (const [path, item] of Object.entries(generated.paths as Record<string, Record<string, Operation>>)) {
    if (!DOCUMENTED_PATH.test(path)) continue;
    paths[path] = item;
    for (const [method, operation] of Object.entries(item)) if (HTTP_METHODS.has(method)) completeResponses(operation);
  }
  addJsonBodies(app, paths);
  const hoisted = hoistNamedSchemas(paths, schemas) as OpenAPIV3_1.PathsObject;
  hoistNamedSchemas(ErrorBodySchema, schemas); // the derived error answers refer to it
  return { paths: hoisted, schemas };
}

/**
 * The generator leaves a body's content empty when the route has a parse hook, as every body of
 * ours has (src/http/request-body.ts bounds them): the body schema is JSON's.
 */
function addJsonBodies(app: AnyElysia, paths: Record<string, Record<string, Operation>>) {
  for (const route of globalRoutes(app)) {
    const body = route.hooks?.body;
    const operation = paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
    const requestBody = operation?.requestBody as { content?: Record<string, unknown> } | undefined;
    if (!body || typeof body === "string" || !requestBody || Object.keys(requestBody.content ?? {}).length) continue;
    requestBody.content = { "application/json": { schema: unwrapSchema(body, undefined, "input", "3.1.0") } };
  }
}

/** Every route of the application the plugin is part of (what the generator reads; protected in Elysia's types). */
export const globalRoutes = (app: AnyElysia): AnyElysia["routes"] => (app as unknown as { getGlobalRoutes(): AnyElysia["routes"] }).getGlobalRoutes();

function completeResponses(operation: Operation) {
  const responses: Responses = (operation.responses ??= {});
  for (const answer of Object.values(responses)) {
    // The generator writes `{type: "void", description}` as the content of a schema-less answer.
    if (answer.content && !Object.keys(answer.content).some((key) => key.includes("/"))) delete answer.content;
  }
  const derived = [
    ...(operation.parameters?.length || operation.requestBody ? ["400"] : []),
    ...(operation.security ? ["401", "403"] : []),
  ];
  for (const status of derived) {
    responses[status] ??= { description: ERROR_DESCRIPTIONS[status]!, content: { "application/json": { schema: ERROR_BODY_REF } } };
  }
  for (const [status, answer] of Object.entries(responses)) {
    if (Number(status) >= 400 && answer.description?.startsWith("Response for status")) answer.description = ERROR_DESCRIPTIONS[status] ?? "Error";
  }
}

/**
 * Replaces every schema carrying a `$id` by a reference to a component of that name, the
 * component being the schema without its `$id` (its own named parts referenced in turn).
 */
function hoistNamedSchemas(value: unknown, schemas: Record<string, Json>): unknown {
  if (Array.isArray(value)) return value.map((entry) => hoistNamedSchemas(entry, schemas));
  if (value === null || typeof value !== "object") return value;
  // A TypeBox schema straight from a route's `detail` gets the generator's rendering too
  // (nullable unions as type lists), so that a component reads the same from everywhere.
  if (Kind in value) value = unwrapSchema(value as TSchema, undefined, "output", "3.1.0");
  const { $id, ...rest } = value as Json;
  const copy: Json = {};
  for (const [key, entry] of Object.entries(rest)) copy[key] = hoistNamedSchemas(entry, schemas);
  // The generator folds `Union([enum, Null])` into `type: [string, null]` but leaves null out of the enum.
  if (Array.isArray(copy.enum) && Array.isArray(copy.type) && copy.type.includes("null") && !copy.enum.includes(null)) copy.enum = [...copy.enum, null];
  if (typeof $id !== "string") return copy;
  // The generator folds a nullable union into the schema (`type: ["object", "null"]`): the
  // component stays the plain shape, the use says "or null".
  const nullable = Array.isArray(copy.type) && copy.type.includes("null");
  if (nullable) {
    const types = (copy.type as string[]).filter((type) => type !== "null");
    copy.type = types.length === 1 ? types[0] : types;
  }
  const known = schemas[$id];
  if (known && !Bun.deepEquals(known, copy)) throw new Error(`two different schemas are both named ${$id}`);
  schemas[$id] = copy;
  const reference = { $ref: `#/components/schemas/${$id}` };
  return nullable ? { anyOf: [reference, { type: "null" }] } : reference;
}
