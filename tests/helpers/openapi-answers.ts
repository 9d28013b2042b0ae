/**
 * Every JSON answer the tests receive from /api/v1 (and /health) through the shared request
 * helpers is checked against the server's own OpenAPI document (/api/docs/json) with ajv:
 * - a success status the operation does not list, or a body that does not match the listed
 *   schema, fails the request (and so the test that sent it);
 * - an error answer must be the contract's ErrorBody;
 * - strict: a field the document does not declare fails too (every object schema with
 *   `properties` gets `additionalProperties: false` here; maps declared with
 *   `additionalProperties`/`patternProperties` schemas stay open). The published document
 *   allows added fields for clients; the tests make sure it declares them all.
 * The failure names the operation, the status and the field, e.g.
 *   `GET /api/v1/books/{id} answered 200 with an undeclared field /seriesPosition`.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal characters of the template: the more, the more specific (books/errors before books/{id}). */
  specificity: number;
  responses: Record<string, { content?: Record<string, unknown> }>;
}

interface AnswerChecker {
  check(method: string, path: string, status: number, mediaType: string, body: unknown): void;
}

const DOCUMENTED = /^\/(api\/v1\/|health(\?|$))/;
let checker: Promise<AnswerChecker> | undefined;

/** Throws when the answer does not match the document (see the module comment). */
export async function checkAnswer(baseUrl: string, method: string, path: string, status: number, contentType: string | null, body: unknown) {
  if (!DOCUMENTED.test(path) || !contentType?.includes("json")) return;
  // The document is the same code's on every test server: loaded once, from the first.
  checker ??= loadChecker(baseUrl);
  const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
  (await checker).check(method.toLowerCase(), path.split("?")[0]!, status, mediaType, body);
}

async function loadChecker(baseUrl: string): Promise<AnswerChecker> {
  const response = await fetch(`${baseUrl}/api/docs/json`);
  if (!response.ok) throw new Error(`the OpenAPI document did not load: ${response.status}`);
  const document = strict(await response.json()) as { paths: Record<string, Record<string, { responses?: Operation["responses"] }>> };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: "openapi" });
  const operations: Operation[] = Object.entries(document.paths)
    .flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method,
        template,
        pattern: new RegExp(`^${template.replace(/[.+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+").replace("*", ".*")}$`),
        specificity: template.replace(/\{[^}]+\}|\*/g, "").length,
        responses: operation.responses ?? {},
      })),
    )
    .sort((a, b) => b.specificity - a.specificity);
  const validators = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) validators.set(pointer, (validate = ajv.compile({ $ref: `openapi#${pointer}` })));
    return validate;
  };
  const errorBody = validator("/components/schemas/ErrorBody");
  return {
    check(method, path, status, mediaType, body) {
      const operation = operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
      if (!operation) return; // no such route: the 404 is the router's
      const name = `${method.toUpperCase()} ${operation.template}`;
      const answer = operation.responses[String(status)];
      if (!answer?.content?.[mediaType]) {
        // An error the route does not list (a 503 of an outage, a 500) still answers the ErrorBody.
        if (status >= 400) {
          if (!errorBody(body)) throw new Error(`${name} answered ${status} with a body that is not the ErrorBody: ${describe(errorBody.errors)}`);
          return;
        }
        throw new Error(`${name} answered ${status} with ${mediaType}, a status or media type its document does not list`);
      }
      const pointer = `/paths/${escape(operation.template)}/${method}/responses/${status}/content/${escape(mediaType)}/schema`;
      const validate = validator(pointer);
      if (!validate(body)) throw new Error(`${name} answered ${status} with ${describe(validate.errors)}`);
    },
  };
}

const escape = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

function describe(errors: ErrorObject[] | null | undefined): string {
  const problems = (errors ?? []).map((error) =>
    error.keyword === "additionalProperties"
      ? `an undeclared field ${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}`
      : `${error.instancePath || "the body"} ${error.message}`,
  );
  return [...new Set(problems)].join("; ");
}

/** A copy of the document where every object schema with declared properties refuses others. */
function strict(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strict);
  if (value === null || typeof value !== "object") return value;
  const copy = Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, strict(entry)]));
  if (isSchemaWithProperties(copy)) copy.additionalProperties = false;
  return copy;
}

function isSchemaWithProperties(value: Record<string, unknown>): boolean {
  const properties = value.properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return false;
  // A schema's `properties` maps names to schemas; `additionalProperties` given as a schema is a declared map.
  return (value.type === "object" || (Array.isArray(value.type) && value.type.includes("object"))) && typeof value.additionalProperties !== "object";
}
