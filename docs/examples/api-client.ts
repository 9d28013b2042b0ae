/**
 * An API client generated from Longbox's OpenAPI document: signs in with an API key, lists
 * series, reads a page and records reading progress. The types come from longbox-api.ts
 * (regenerate it with `bun scripts/openapi-types.ts http://your-server`); the requests go
 * through openapi-fetch, which checks paths, parameters and bodies against them.
 *
 *   LONGBOX_URL=http://127.0.0.1:8080 LONGBOX_API_KEY=lbx_... bun docs/examples/api-client.ts
 *
 * The project's type check (tsc, in `npm test`) compiles this file against the generated types.
 */
import createClient from "openapi-fetch";
import type { paths } from "./longbox-api";

export async function readFirstPage(baseUrl: string, apiKey: string) {
  // An API key in X-API-Key (or as a Bearer token) is the whole sign-in.
  const api = createClient<paths>({ baseUrl, headers: { "X-API-Key": apiKey } });

  const series = await api.GET("/api/v1/series", { params: { query: { pageSize: "10", sort: "name" } } });
  if (series.error) throw new Error(`listing series failed: ${series.error.error}: ${series.error.message}`);
  const first = series.data.data[0];
  if (!first) return console.log("no series yet");
  console.log(`${series.data.total} series; the first is ${first.name} (${first.bookCount} books)`);

  const books = await api.GET("/api/v1/series/{id}/books", { params: { path: { id: first.id } } });
  if (books.error) throw new Error(`listing books failed: ${books.error.message}`);
  const book = books.data.data[0];
  if (!book) return console.log("the series has no book");

  const page = await api.GET("/api/v1/books/{id}/pages/{n}", { params: { path: { id: book.id, n: "1" } }, parseAs: "blob" });
  if (page.error) throw new Error(`reading page 1 failed: ${page.response.status}`);
  console.log(`page 1 of ${book.title}: ${page.data.size} bytes of ${page.response.headers.get("content-type")}`);

  const progress = await api.PUT("/api/v1/books/{id}/progress", { params: { path: { id: book.id } }, body: { page: 1 } });
  if (progress.error) throw new Error(`recording progress failed: ${progress.error.message}`);
  console.log(`progress on ${book.title}: page ${progress.data.page}, ${progress.data.percentage}%`);
}

if (import.meta.main) {
  const { LONGBOX_URL = "http://127.0.0.1:8080", LONGBOX_API_KEY } = process.env;
  if (!LONGBOX_API_KEY) throw new Error("set LONGBOX_API_KEY to an API key (Account, API keys)");
  await readFirstPage(LONGBOX_URL, LONGBOX_API_KEY);
}
