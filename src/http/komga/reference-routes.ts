/**
 * The value lists Komga clients offer as filters (genres, tags, publishers, languages,
 * age ratings, release years, sharing labels, authors; of a collection or read list: none), and
 * collections and read lists, which
 * Longbox does not have yet: well-formed and empty lists, 404 for any id, none holding a
 * (visible) series or book.
 */
import { Elysia } from "elysia";
import { notFound } from "../../errors";
import type { CatalogueFacets } from "../../library/catalogue-metadata";
import type { Services } from "../../services";
import { IdParams } from "../params";
import { komgaAuth } from "./auth";
import { ids } from "./list-filters";
import { optionalList, type Pageable, pageableOf, queryOf, springPage } from "./spring-page";

const detail = (summary: string) => ({ summary: `Komga: ${summary}`, tags: ["komga"] });

const NO_FACETS: CatalogueFacets = { genres: [], tags: [], publishers: [], languages: [], releaseYears: [], authors: [] };

/** One page of an in-memory list. */
function pageOf<T>(items: T[], pageable: Pageable) {
  const content = pageable.unpaged ? items : items.slice(pageable.page * pageable.size, (pageable.page + 1) * pageable.size);
  return springPage(content, items.length, pageable);
}

export function komgaReferenceRoutes(services: Services) {
  const { catalogueMetadata, series, books } = services;
  /** The facets of the libraries (library_id) and series (series_id) the request names, else of everything visible. */
  const facets = async (caller: { id: string; role: "admin" | "user" }, request: Request) => {
    const query = queryOf(request);
    // Of the series of a collection or the books of a read list: Longbox has none, so nothing.
    if (optionalList(query, "collection_id") || optionalList(query, "readlist_id")) return NO_FACETS;
    return catalogueMetadata.facets(caller, { libraryIds: ids(optionalList(query, "library_id")), seriesIds: ids(optionalList(query, "series_id")) });
  };
  const releaseYears = async ({ caller, request }: { caller: { user: { id: string; role: "admin" | "user" } }; request: Request }) =>
    (await facets(caller.user, request)).releaseYears.map(String);
  const missing = () => {
    throw notFound("collection or read list");
  };
  const emptyResource = (name: "collections" | "readlists") =>
    new Elysia({ name: `komga-${name}` })
      .use(komgaAuth(services))
      .get(`/api/v1/${name}`, ({ request }) => springPage([], 0, pageableOf(queryOf(request))), { komga: true, detail: detail(`${name} (none yet)`) })
      .get(`/api/v1/${name}/:id`, missing, { komga: true, params: IdParams, detail: detail(`one of the ${name} (none yet)`) })
      // Its series or books, thumbnail, tachiyomi progress...: of a collection or read list that does not exist.
      .all(`/api/v1/${name}/:id/*`, missing, { komga: true, detail: detail(`anything of one of the ${name} (none yet)`) });


  return new Elysia({ name: "komga-reference-routes" })
    .use(komgaAuth(services))
    .get("/api/v1/genres", async ({ caller, request }) => (await facets(caller.user, request)).genres, { komga: true, detail: detail("genres") })
    .get("/api/v1/tags", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("tags") })
    .get("/api/v1/tags/book", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("book tags") })
    .get("/api/v1/tags/series", async ({ caller, request }) => (await facets(caller.user, request)).tags, { komga: true, detail: detail("series tags") })
    .get("/api/v1/publishers", async ({ caller, request }) => (await facets(caller.user, request)).publishers, { komga: true, detail: detail("publishers") })
    .get("/api/v1/languages", async ({ caller, request }) => (await facets(caller.user, request)).languages, { komga: true, detail: detail("languages") })
    .get("/api/v1/age-ratings", () => [] as string[], { komga: true, detail: detail("age ratings (Longbox keeps none)") })
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
    )
    // Komelia's series and book screens ask which collections / read lists hold them.
    .get(
      "/api/v1/series/:id/collections",
      async ({ caller, params: { id } }) => {
        await series.get(caller.user, id);
        return [] as unknown[];
      },
      { komga: true, params: IdParams, detail: detail("the collections holding the series (none yet)") },
    )
    .get(
      "/api/v1/books/:id/readlists",
      async ({ caller, params: { id } }) => {
        await books.get(caller.user, id);
        return [] as unknown[];
      },
      { komga: true, params: IdParams, detail: detail("the read lists holding the book (none yet)") },
    )
    .use(emptyResource("collections"))
    .use(emptyResource("readlists"));
}
