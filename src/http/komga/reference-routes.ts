/**
 * The value lists Komga clients offer as filters (genres, tags, publishers, languages,
 * age ratings, release years, sharing labels, authors; of a collection's series or a read list's
 * books when asked). Collections and read lists themselves: ./reading-list-routes.ts.
 */
import { Elysia } from "elysia";
import { DomainError } from "../../errors";
import type { CatalogueFacets } from "../../library/catalogue-metadata";
import type { ListKind } from "../../db";
import type { Services } from "../../services";
import { komgaAuth } from "./auth";
import { ids } from "./list-filters";
import { optionalList, type Pageable, pageableOf, queryOf, springPage } from "./spring-page";

const isNotFound = (error: unknown) => error instanceof DomainError && error.kind === "NotFound";

const detail = (summary: string) => ({ summary: `Komga: ${summary}`, tags: ["komga"] });

const NO_FACETS: CatalogueFacets = { genres: [], tags: [], ageRatings: [], publishers: [], languages: [], releaseYears: [], authors: [] };

/** One page of an in-memory list. */
function pageOf<T>(items: T[], pageable: Pageable) {
  const content = pageable.unpaged ? items : items.slice(pageable.page * pageable.size, (pageable.page + 1) * pageable.size);
  return springPage(content, items.length, pageable);
}

export function komgaReferenceRoutes(services: Services) {
  const { catalogueMetadata, readingLists } = services;
  /**
   * The visible series of the collections (`collection_id`) and of the read lists' books
   * (`readlist_id`) a request names; undefined when it names none.
   */
  const seriesOfLists = async (caller: { id: string; role: "admin" | "user" }, query: URLSearchParams): Promise<string[] | undefined> => {
    const collections = ids(optionalList(query, "collection_id"));
    const readLists = ids(optionalList(query, "readlist_id"));
    if (!collections && !readLists) return undefined;
    const series = new Set<string>();
    // A list the caller may not see (or none with that id) adds nothing, as Komga filters by it.
    const seriesOf = (kind: ListKind, id: string) => readingLists.seriesOf(caller, kind, id).catch((error) => (isNotFound(error) ? [] : Promise.reject(error)));
    for (const id of collections ?? []) for (const seriesId of await seriesOf("collection", id)) series.add(seriesId);
    for (const id of readLists ?? []) for (const seriesId of await seriesOf("readlist", id)) series.add(seriesId);
    return [...series];
  };
  /**
   * The values of the libraries (library_id), series (series_id) and lists the request names,
   * else of everything visible: the series' own, which Komga's series filters match, or with
   * `of: "books"` the books' (Komga's book tags).
   */
  const facets = async (caller: { id: string; role: "admin" | "user" }, request: Request, of: "series" | "books" = "series"): Promise<CatalogueFacets> => {
    const query = queryOf(request);
    const libraryIds = ids(optionalList(query, "library_id"));
    const named = ids(optionalList(query, "series_id"));
    const listed = await seriesOfLists(caller, query);
    const seriesIds = listed === undefined ? named : named ? named.filter((id) => listed.includes(id)) : listed;
    if (seriesIds?.length === 0 && listed !== undefined) return NO_FACETS;
    return of === "books" ? catalogueMetadata.bookFacets(caller, { libraryIds, seriesIds }) : catalogueMetadata.seriesFacets(caller, { libraryIds, seriesIds });
  };
  const releaseYears = async ({ caller, request }: { caller: { user: { id: string; role: "admin" | "user" } }; request: Request }) =>
    (await facets(caller.user, request)).releaseYears.map(String);

  return new Elysia({ name: "komga-reference-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/genres", async ({ caller, request }) => (await facets(caller.user, request)).genres, { komga: true, detail: detail("genres") })
    .get("/api/v1/tags", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("tags") })
    .get("/api/v1/tags/book", async ({ caller, request }) => (await facets(caller.user, request, "books")).tags, { komga: true, detail: detail("book tags") })
    .get("/api/v1/tags/series", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("series tags") })
    .get("/api/v1/publishers", async ({ caller, request }) => (await facets(caller.user, request)).publishers, { komga: true, detail: detail("publishers") })
    .get("/api/v1/languages", async ({ caller, request }) => (await facets(caller.user, request)).languages, { komga: true, detail: detail("languages") })
    .get("/api/v1/age-ratings", async ({ caller, request }) => (await facets(caller.user, request)).ageRatings.map(String), {
      komga: true,
      detail: detail("the series' age ratings, youngest first"),
    })
    .get("/api/v1/release-dates", releaseYears, { komga: true, detail: detail("release years, newest first") })
    // Komga's path (Komelia's series filter panel); before /series/:id, which it is not.
    .get("/api/v1/series/release-dates", releaseYears, { komga: true, detail: detail("the series' release years, newest first") })
    .get("/api/v1/sharing-labels", () => [] as string[], { komga: true, detail: detail("sharing labels (Longbox's sharing tags are not exposed)") })
    .get("/api/v1/authors", async ({ caller, request }) => (await facets(caller.user, request)).authors, { komga: true, detail: detail("authors") })
    .get(
      "/api/v1/authors/names",
      async ({ caller, request }) => {
        const search = queryOf(request).get("search")?.toLowerCase() ?? "";
        const names = (await facets(caller.user, request)).authors.map((author) => author.name).filter((name) => name.toLowerCase().includes(search));
        return [...new Set(names)];
      },
      { komga: true, detail: detail("author names (search: containing, ignoring case)") },
    )
    .get("/api/v1/authors/roles", async ({ caller, request }) => [...new Set((await facets(caller.user, request)).authors.map((author) => author.role))].sort(), {
      komga: true,
      detail: detail("author roles"),
    })
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
