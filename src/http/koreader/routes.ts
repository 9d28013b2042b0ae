/**
 * KOReader progress sync (kosync) under /koreader, speaking the protocol of KOReader's sync
 * plugin and the official koreader-sync-server: the same routes, bodies, status codes and
 * `{code, message}` errors. Every answer is sent as exactly `Content-Type: application/json`:
 * KOReader decodes a body only when it recognises that type (older builds need the literal
 * string), and shows "No progress found" otherwise.
 *
 * Credentials come in `x-auth-user` and `x-auth-key`: the Longbox username with the MD5 of the
 * user's KOReader sync key (not their password; see src/auth/koreader-keys.ts), or, as Komga
 * allows, an API key in `x-auth-user` alone. Without `x-auth-user`, Longbox's usual credentials
 * are taken. Accounts are made in Longbox, so registration is
 * refused with the official server's "registration disabled" answer, whose message KOReader
 * shows. Not mounted when `koreader_api.enabled` is false.
 */
import { Elysia } from "elysia";
import type { Server } from "bun";
import type { UserRecord } from "../../db";
import { looksLikeApiKey } from "../../auth/api-keys";
import { DomainError } from "../../errors";
import type { KoreaderPosition } from "../../library/koreader-sync";
import type { Services } from "../../services";
import { readBodyAtMost } from "../request-body";
import { authenticateRequest } from "../auth-plugin";
import { clientIp } from "../client-address";

/** A kosync error: its status and the `{code, message}` body the official server sends. */
class KosyncError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const unauthorized = () => new KosyncError(401, 2001, "Unauthorized");
const invalidRequest = () => new KosyncError(403, 2003, "Invalid request");
const documentMissing = () => new KosyncError(403, 2004, "Field 'document' not provided.");

/** A progress body is a few hundred bytes; anything this large is not one. */
const MAX_BODY_BYTES = 16 * 1024;
const MAX_FIELD_LENGTH = 4096;

function kosyncJson(status: number, body: object): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/**
 * Runs a handler, answering kosync errors the way the official server does; a position Longbox
 * refuses (say, a book without pages) is an invalid request.
 */
async function answer(handler: () => Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    const failure = error instanceof DomainError ? new KosyncError(403, 2003, error.message) : error;
    if (failure instanceof KosyncError) return kosyncJson(failure.status, { code: failure.code, message: failure.message });
    throw error;
  }
}

/**
 * KOReader sends `Accept: application/vnd.koreader.v1+json`. Other kosync clients send other
 * types, so only a KOReader type of another version is refused (412 code 102), as the official
 * server does.
 */
function refusedAccept(request: Request): Response | undefined {
  const version = /application\/vnd\.koreader\.v(\d+)\+json/i.exec(request.headers.get("accept") ?? "")?.[1];
  if (version === undefined || version === "1") return undefined;
  return kosyncJson(412, { code: 102, message: "Unsupported version specified in the Accept header." });
}

/** A non-empty string without `:` (the official server's rule for usernames and document ids). */
const isKeyField = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0 && value.length <= MAX_FIELD_LENGTH && !value.includes(":");

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  const bytes = await readBodyAtMost(request, MAX_BODY_BYTES, () => new KosyncError(413, 2003, "Request body too large"));
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new KosyncError(400, 103, "Could not parse JSON in body.");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new KosyncError(400, 104, "Body should be a JSON hash.");
  return body as Record<string, unknown>;
}

/** The position a PUT carries; 403 (code 2003) without a numeric percentage, a progress and a device. */
function positionOf(body: Record<string, unknown>): KoreaderPosition {
  const percentage = typeof body.percentage === "string" ? Number(body.percentage) : body.percentage;
  const text = (value: unknown) => (typeof value === "string" && value.length <= MAX_FIELD_LENGTH ? value : undefined);
  const progress = text(body.progress);
  const device = text(body.device);
  const deviceId = body.device_id === undefined ? "" : text(body.device_id);
  if (typeof percentage !== "number" || !Number.isFinite(percentage) || !progress || !device || deviceId === undefined) throw invalidRequest();
  return { percentage, progress, device, deviceId };
}

/**
 * A header's text: KOReader sends a username's UTF-8 bytes as they are, which arrive as one
 * character per byte; valid UTF-8 is read as such (the sign-in then takes the name in NFKC).
 */
function headerText(value: string | null): string | null {
  if (value === null || !/[\x80-\xff]/.test(value)) return value;
  const decoded = Buffer.from(value, "latin1").toString("utf8");
  return decoded.includes("\uFFFD") ? value : decoded;
}

export function koreaderRoutes(services: Services) {
  const routes = new Elysia({ name: "koreader-routes", prefix: "/koreader" });
  if (!services.config.koreader_api.enabled) return routes;
  const { koreaderKeys, koreaderSync, authenticator } = services;

  /**
   * The account the x-auth headers name; without them, Longbox's usual credentials (an API key
   * in X-API-Key, Bearer or Basic) for other clients. 401 (code 2001) for anything else.
   */
  const callerOf = async (request: Request, server: Server<unknown> | null): Promise<UserRecord> => {
    const user = headerText(request.headers.get("x-auth-user"));
    const key = request.headers.get("x-auth-key") ?? "";
    // Asked for only when a credential is checked (the throttle keys on it).
    const ip = () => clientIp(request, server, services.config.application.trust_proxy);
    try {
      if (user === null) {
        const caller = await authenticateRequest(services, request, server, { browserSession: false });
        if (caller) return caller.user;
      } else if (looksLikeApiKey(user)) {
        const caller = await authenticator.authenticate({ authorization: null, apiKeyHeader: user, clientIp: ip });
        if (caller) return caller.user;
      } else if (isKeyField(user) && key !== "") {
        return await koreaderKeys.verify(user, key, ip());
      }
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
    throw unauthorized();
  };

  return routes
    .onBeforeHandle(({ request }) => refusedAccept(request))
    .post(
      "/users/create",
      () =>
        kosyncJson(402, {
          code: 2005,
          message: "Registration is disabled: accounts are made in Longbox. Set a KOReader sync key in your Longbox account, then log in with it.",
        }),
      { parse: "none", detail: { summary: "kosync register: always refused (accounts are made in Longbox)", tags: ["koreader"] } },
    )
    .get(
      "/users/auth",
      ({ request, server }) =>
        answer(async () => {
          await callerOf(request, server);
          return kosyncJson(200, { authorized: "OK" });
        }),
      { detail: { summary: "kosync authorize", tags: ["koreader"] } },
    )
    .put(
      "/syncs/progress",
      ({ request, server }) =>
        answer(async () => {
          const user = await callerOf(request, server);
          const body = await jsonBody(request);
          if (!isKeyField(body.document)) throw documentMissing();
          const position = positionOf(body);
          const recorded = await koreaderSync.push(user, body.document, position);
          return kosyncJson(200, { document: body.document, timestamp: recorded.timestamp });
        }),
      { parse: "none", detail: { summary: "kosync push: record the position in a document (any document, as the official server)", tags: ["koreader"] } },
    )
    .get(
      "/syncs/progress/:document",
      ({ request, server, params }) =>
        answer(async () => {
          const user = await callerOf(request, server);
          const document = params.document;
          if (!isKeyField(document)) throw documentMissing();
          const position = await koreaderSync.pull(user, document);
          if (!position) return kosyncJson(200, {});
          return kosyncJson(200, {
            document,
            percentage: position.percentage,
            progress: position.progress,
            device: position.device,
            device_id: position.deviceId,
            timestamp: position.timestamp,
          });
        }),
      { detail: { summary: "kosync pull: the position in a document ({} when none was recorded)", tags: ["koreader"] } },
    );
}
