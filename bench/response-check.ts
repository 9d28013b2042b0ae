/**
 * What checking an answer against its route's response schema costs (issue 34), measured where
 * it happens: two Elysia apps answer the same real answer (fetched from the server measured),
 * one declaring the route's response schema as src/http/api does and one declaring none; they
 * alternate over `rounds` rounds of `calls` requests each (app.handle, no network), and the cost
 * is the median difference per request. The caller sets it beside the server's CPU time per
 * request for the same list, measured in the same run (bench/lists.ts), so the share holds on a
 * machine whose speed varies. Both are CPU time (this process's user + system time): wall-clock
 * time here would count the time the neighbours' work takes the core away, which the server's
 * CPU time does not, and so overstate the share on a loaded machine.
 */
import { Elysia, t } from "elysia";
import type { TSchema } from "@sinclair/typebox";
// Loads the OpenAPI plugin and then puts back our own format checks, as the server does.
import "../src/http/openapi";
import { answers, BookDtoSchema, LibraryDtoSchema, Paginated, SeriesDtoSchema } from "../src/http/api/schemas";
import { median } from "./measure";

/** The response schemas of the lists bench/lists.ts measures, by the path's start. */
export function listSchemaOf(path: string): TSchema {
  if (path.startsWith("/api/v1/libraries")) return t.Array(LibraryDtoSchema);
  if (/^\/api\/v1\/series\/[^/?]+\/books/.test(path) || path.startsWith("/api/v1/books")) return Paginated(BookDtoSchema);
  if (path.startsWith("/api/v1/series")) return Paginated(SeriesDtoSchema);
  throw new Error(`no response schema known for ${path}`);
}

/** Microseconds of CPU per request the response check adds for this answer (median of the rounds' differences). */
export async function responseCheckMicros(schema: TSchema, answer: unknown, rounds = 7, calls = 1000): Promise<number> {
  // Each call answers a fresh copy, as a route builds its answer anew (a check may not mutate a shared one).
  const json = JSON.stringify(answer);
  const checked = new Elysia().get("/", () => JSON.parse(json), { response: answers({ 200: schema }) });
  const unchecked = new Elysia().get("/", () => JSON.parse(json));
  const timeOf = async (app: { handle: (request: Request) => Promise<Response> }) => {
    const started = process.cpuUsage();
    for (let call = 0; call < calls; call++) {
      const response = await app.handle(new Request("http://bench/"));
      if (response.status !== 200) throw new Error(`the answer does not pass its schema: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
    const spent = process.cpuUsage(started);
    return (spent.user + spent.system) / calls;
  };
  // Warm both (JIT, the schema's compiled check) before measuring.
  await timeOf(checked);
  await timeOf(unchecked);
  const differences: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const withCheck = await timeOf(checked);
    const without = await timeOf(unchecked);
    differences.push(withCheck - without);
  }
  return median(differences);
}
