/** Request bodies read with a running count, so an oversized one is never buffered whole. */

/** The request body, refused as soon as it is longer than `limit` bytes (declared or actually sent). */
export async function readAtMost<E extends Error>(request: Request, limit: number, tooLarge: () => E): Promise<Uint8Array<ArrayBuffer>> {
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
