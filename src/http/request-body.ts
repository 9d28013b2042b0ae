/**
 * Request bodies, read one way for every route. Elysia would parse a body (JSON, form, text)
 * whole and before the route's `auth` check, so one global parse hook takes over:
 *
 *   1. a route that needs credentials checks them first, with the check its route option
 *      registered (src/http/credentials-before-body.ts: the `auth` and `page` options, Komga's
 *      `komga`); a request that fails is answered 401/403 without its body being read;
 *   2. the body is refused with 413 when its Content-Length, or the bytes actually received
 *      (a chunked body has no length), pass `application.max_request_body_bytes`;
 *   3. JSON nested deeper than MAX_JSON_DEPTH is a 400 before it reaches the parser or the
 *      schema validator (whose recursion would otherwise overflow the stack: a 500).
 *
 * Routes that stream their own body with their own limit (the cover upload) declare
 * `parse: "none"`; this hook leaves their body unread. Which routes need credentials and which
 * read their own body is learnt from the mounted routes (`learnRoutes`), so the route's option
 * stays the one place that says it.
 */
import { Elysia } from "elysia";
import { Memoirist } from "memoirist";
import { DomainError } from "../errors";
import { checkBeforeBodyOf, type CheckBeforeBody, type CredentialServices } from "./credentials-before-body";

/** Deeper JSON than this is refused; no request of the API nests more than a few levels. */
const MAX_JSON_DEPTH = 64;

interface RouteBodyPolicy {
  checkCredentials: CheckBeforeBody | undefined;
  readsOwnBody: boolean;
}

interface MountedRoute {
  method: string;
  path: string;
  hooks: { detail?: unknown; parse?: unknown };
}

/** The value a route sees as its body when the body was deliberately left unread. */
const UNREAD: Record<string, never> = Object.freeze({});

export function boundedRequestBodies(services: CredentialServices) {
  const limit = services.config.application.max_request_body_bytes;
  const policies = new Memoirist<RouteBodyPolicy>();

  const plugin = new Elysia({ name: "request-bodies" }).onParse({ as: "global" }, async ({ request, path, server }, contentType) => {
    const policy = policies.find(request.method, path)?.store;
    if (policy?.readsOwnBody) return UNREAD;
    // A refused caller gets its 401/403 from the route's auth check, which runs next.
    if (policy?.checkCredentials && !(await policy.checkCredentials(request, server))) return UNREAD;
    const bytes = await readBodyAtMost(request, limit, () => bodyTooLarge(limit));
    if (bytes.length === 0) return undefined;
    return decodeBody(bytes, contentType, request.headers.get("content-type") ?? contentType);
  });

  /** Records, for each mounted route, whether it needs credentials and whether it reads its own body. */
  function learnRoutes(routes: readonly MountedRoute[]) {
    for (const route of routes) {
      const checkCredentials = checkBeforeBodyOf(services, route.hooks.detail);
      const readsOwnBody = parsesNothing(route.hooks.parse);
      if (checkCredentials || readsOwnBody) policies.add(route.method, route.path, { checkCredentials, readsOwnBody }, { ignoreError: true });
    }
  }

  return { plugin, learnRoutes };
}

function parsesNothing(parse: unknown): boolean {
  const hooks = Array.isArray(parse) ? parse : [parse];
  return hooks.some((hook) => hook === "none" || (typeof hook === "object" && hook !== null && "fn" in hook && hook.fn === "none"));
}

function bodyTooLarge(limit: number): DomainError {
  return new DomainError("PayloadTooLarge", `the request body is larger than ${limit} bytes`, { maxBytes: limit });
}

/** The request body, refused as soon as it is longer than `limit` bytes (declared or actually sent). */
export async function readBodyAtMost<E extends Error>(request: Request, limit: number, tooLarge: () => E): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
    total += chunk.value.length;
    if (total > limit) {
      await reader?.cancel();
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks) as Uint8Array<ArrayBuffer>;
}

/**
 * The body as Elysia's own parsers would have given it, by media type. A multipart form (the
 * web's small file forms, e.g. a .cbl import, within the same size limit) becomes its fields,
 * files as `File`s; large uploads read their own body. Anything else stays raw bytes (and fails
 * validation).
 */
async function decodeBody(bytes: Uint8Array<ArrayBuffer>, contentType: string, contentTypeHeader: string): Promise<unknown> {
  const mediaType = contentType.toLowerCase();
  if (mediaType.startsWith("multipart/form-data")) {
    try {
      // The header, not the media type alone: the parts' boundary is one of its parameters.
      const form = await new Response(bytes, { headers: { "content-type": contentTypeHeader } }).formData();
      const fields: Record<string, unknown> = {};
      form.forEach((value, name) => {
        fields[name] = value;
      });
      return fields;
    } catch {
      throw new DomainError("BadRequest", "the request body is not valid multipart/form-data");
    }
  }
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return parseJson(new TextDecoder().decode(bytes));
  if (mediaType === "application/x-www-form-urlencoded") return formFields(new TextDecoder().decode(bytes));
  if (mediaType.startsWith("text/")) return new TextDecoder().decode(bytes);
  return bytes.buffer;
}

/** A form's fields; a repeated one (checkboxes of one name) as the list of its values, as Elysia gives it. */
function formFields(text: string): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const earlier = fields.get(name);
    // Appended in place: a body of many repeated fields costs linear time, not quadratic.
    if (Array.isArray(earlier)) earlier.push(value);
    else fields.set(name, earlier === undefined ? value : [earlier, value]);
  }
  return Object.fromEntries(fields);
}

function parseJson(text: string): unknown {
  if (nestingExceeds(text, MAX_JSON_DEPTH)) {
    throw new DomainError("BadRequest", `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("BadRequest", "the request body is not valid JSON");
  }
}

/** Whether arrays/objects nest deeper than `max`, counting brackets outside strings. */
function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}
