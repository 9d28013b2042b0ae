/**
 * Request bodies read with a running count and refused (413) as soon as they pass a limit
 * (declared or actually sent), so an oversized body is never buffered whole, before anything
 * parses it.
 */
import { DomainError } from "../errors";

/** The request body, refused as soon as it is longer than `limit` bytes. */
export async function readAtMost(request: Request, limit: number, tooLarge: () => DomainError): Promise<Uint8Array<ArrayBuffer>> {
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw tooLarge();
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
 * An Elysia `parse` option: the body as JSON, at most `limit` bytes (413 beyond, 400 when it is
 * not JSON; an empty body is null, which the route's body schema then refuses).
 */
export function jsonAtMost(limit: number) {
  return async ({ request }: { request: Request }): Promise<unknown> => {
    const bytes = await readAtMost(request, limit, () => new DomainError("PayloadTooLarge", `the request body is larger than ${limit} bytes`));
    if (bytes.length === 0) return null;
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new DomainError("BadRequest", "the request body is not valid JSON");
    }
  };
}
