/** Request bodies that show whether a server reads a body before answering. */

/** A request body that sends `first` and then never ends (nor says how long it is). */
export function endlessBody(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
  });
}

/** fetch that gives up after `ms`: a server that waits for the whole body never answers. */
export async function fetchWithin(url: string, init: RequestInit, ms = 5000): Promise<Response | "timeout"> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    return await fetch(url, { ...init, signal: controller.signal });
  } catch (error) {
    if (controller.signal.aborted) return "timeout";
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
