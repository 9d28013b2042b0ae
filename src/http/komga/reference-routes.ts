/**
 * The value lists Komga clients offer as filters (genres, tags, publishers, languages,
 * age ratings, release years, sharing labels, authors). Collections and read lists:
 * ./reading-list-routes.ts.
 */
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { komgaAuth } from "./auth";
import { ids } from "./list-filters";
import { optionalList, type Pageable, pageableOf, queryOf, springPage } from "./spring-page";

const detail = (summary: string) => ({ summary: `Komga: ${summary}`, tags: ["komga"] });

/** One page of an in-memory list. */
function pageOf<T>(items: T[], pageable: Pageable) {
  const content = pageable.unpaged ? items : items.slice(pageable.page * pageable.size, (pageable.page + 1) * pageable.size);
  return springPage(content, items.length, pageable);
}

export function komgaReferenceRoutes(services: Services) {
  const { catalogueMetadata } = services;
  /** The facets of the libraries (library_id) and series (series_id) the request names, else of everything visible. */
  const facets = (caller: { id: string; role: "admin" | "user" }, request: Request) => {
    const query = queryOf(request);
    return catalogueMetadata.facets(caller, { libraryIds: ids(optionalList(query, "library_id")), seriesIds: ids(optionalList(query, "series_id")) });
  };

  return new Elysia({ name: "komga-reference-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/genres", async ({ caller, request }) => (await facets(caller.user, request)).genres, { komga: true, detail: detail("genres") })
    .get("/api/v1/tags", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("tags") })
    .get("/api/v1/tags/book", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("book tags") })
    .get("/api/v1/tags/series", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("series tags") })
    .get("/api/v1/publishers", async ({ caller, request }) => (await facets(caller.user, request)).publishers, { komga: true, detail: detail("publishers") })
    .get("/api/v1/languages", async ({ caller, request }) => (await facets(caller.user, request)).languages, { komga: true, detail: detail("languages") })
    .get("/api/v1/age-ratings", () => [] as string[], { komga: true, detail: detail("age ratings (Longbox keeps none)") })
    .get("/api/v1/release-dates", async ({ caller, request }) => (await facets(caller.user, request)).releaseYears.map(String), {
      komga: true,
      detail: detail("release years, newest first"),
    })
    .get("/api/v1/sharing-labels", () => [] as string[], { komga: true, detail: detail("sharing labels (Longbox's sharing tags are not exposed)") })
    .get("/api/v1/authors", async ({ caller, request }) => (await facets(caller.user, request)).authors, { komga: true, detail: detail("authors") })
    .get(
      "/api/v2/authors",
      async ({ caller, request }) => {
        const query = queryOf(request);
        const search = query.get("search")?.toLowerCase() ?? "";
        const role = query.get("role")?.toLowerCase();
        const authors = (await facets(caller.user, request)).authors.filter(
          (author) => author.name.toLowerCase().includes(search) && (!role || author.role.toLowerCase() === role),
        );
        return pageOf(authors, pageableOf(query));
      },
      { komga: true, detail: detail("authors (search, role, library_id, series_id; Spring paging)") },
    );
}
