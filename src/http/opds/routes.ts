/**
 * The OPDS slice: the same catalogue feeds under /opds/v1.2 (Atom) and /opds/v2 (JSON), the
 * OpenSearch description, and the OPDS-PSE page route. Every route needs credentials; a 401
 * carries `WWW-Authenticate: Basic` so that readers prompt for them. Not mounted at all when
 * `opds.enabled` is false.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { pageRequest, pagingQuery } from "../paging";
import { atomFeed, ATOM_CONTENT_TYPE } from "./atom-feed";
import { OpdsCatalog, type Feed } from "./catalog";
import { opds2Feed, OPDS2_CONTENT_TYPE } from "./opds2-feed";
import { OpdsListFeeds } from "./list-feeds";
import { openSearchDescription, OPENSEARCH_CONTENT_TYPE } from "./opensearch";
import { opdsFileRoutes } from "./files";
import { pageStreamRoute } from "./page-stream";
import { OPDS_ROOTS, OpdsUrls, type OpdsVersion } from "./urls";
import { thumbnailType } from "./vocabulary";
import { IdParams } from "../params";


/** How one OPDS version writes a feed. */
interface FeedWriter {
  version: OpdsVersion;
  write(feed: Feed, urls: OpdsUrls): Response;
}

export function opdsRoutes(services: Services) {
  const routes = new Elysia({ name: "opds-routes" });
  if (!services.config.opds.enabled) return routes;
  const catalog = new OpdsCatalog(services);
  const lists = new OpdsListFeeds(services, catalog);
  const thumbnails = thumbnailType(services.config.files.thumbnail_format);
  const atom: FeedWriter = {
    version: "v1.2",
    write: (feed, urls) => new Response(atomFeed(feed, { urls, thumbnailType: thumbnails }), { headers: { "content-type": ATOM_CONTENT_TYPE } }),
  };
  const json: FeedWriter = {
    version: "v2",
    write: (feed, urls) =>
      new Response(JSON.stringify(opds2Feed(feed, { urls, thumbnailType: thumbnails })), { headers: { "content-type": OPDS2_CONTENT_TYPE } }),
  };
  return routes
    .use(feedRoutes(services, catalog, atom))
    .use(feedRoutes(services, catalog, json))
    .use(listFeedRoutes(services, lists, atom))
    .use(listFeedRoutes(services, lists, json))
    .use(
      new Elysia({ name: "opds-search-description" }).use(authPlugin(services, { basicChallenge: true })).get(
        `${OPDS_ROOTS["v1.2"]}/search.xml`,
        ({ request }) =>
          new Response(openSearchDescription(OpdsUrls.forRequest(request, services.config.application, "v1.2")), {
            headers: { "content-type": OPENSEARCH_CONTENT_TYPE },
          }),
        { auth: "user", detail: { summary: "OpenSearch description of the OPDS search", tags: ["opds"] } },
      ),
    )
    .use(pageStreamRoute(services))
    .use(opdsFileRoutes(services));
}

/** The catalogue's feeds in one version's syntax. */
function feedRoutes(services: Services, catalog: OpdsCatalog, writer: FeedWriter) {
  const urlsFor = (request: Request) => OpdsUrls.forRequest(request, services.config.application, writer.version);
  const detail = (summary: string) => ({ summary: `OPDS ${writer.version}: ${summary}`, tags: ["opds"] });
  return new Elysia({ name: `opds-${writer.version}-feeds`, prefix: OPDS_ROOTS[writer.version] })
    .use(authPlugin(services, { basicChallenge: true }))
    .get("/catalog", async ({ caller, request }) => writer.write(await catalog.root(caller.user), urlsFor(request)), {
      auth: "user",
      detail: detail("the root: continue reading, recently added, all series, libraries"),
    })
    .get(
      "/libraries/:id",
      async ({ caller, params, query, request }) => writer.write(await catalog.library(caller.user, params.id, pageRequest(query)), urlsFor(request)),
      { auth: "user", params: IdParams, query: pagingQuery, detail: detail("a library's series (paged)") },
    )
    .get("/series", async ({ caller, query, request }) => writer.write(await catalog.allSeries(caller.user, pageRequest(query)), urlsFor(request)), {
      auth: "user",
      query: pagingQuery,
      detail: detail("every series (paged)"),
    })
    .get(
      "/series/:id",
      async ({ caller, params, query, request }) => writer.write(await catalog.series(caller.user, params.id, pageRequest(query)), urlsFor(request)),
      { auth: "user", params: IdParams, query: pagingQuery, detail: detail("a series' books in reading order (paged)") },
    )
    .get("/recent", async ({ caller, query, request }) => writer.write(await catalog.recentlyAdded(caller.user, pageRequest(query)), urlsFor(request)), {
      auth: "user",
      query: pagingQuery,
      detail: detail("recently added books (paged)"),
    })
    .get(
      "/continue-reading",
      async ({ caller, query, request }) => writer.write(await catalog.continueReading(caller.user, pageRequest(query)), urlsFor(request)),
      { auth: "user", query: pagingQuery, detail: detail("books the caller has started and not finished (paged)") },
    )
    .get(
      "/search",
      async ({ caller, query, request }) => writer.write(await catalog.search(caller.user, query.q, pageRequest(query)), urlsFor(request)),
      {
        auth: "user",
        query: t.Composite([pagingQuery, t.Object({ q: t.String({ minLength: 1, maxLength: 200 }) })]),
        detail: detail("books whose title, series or author contains `q` (paged)"),
      },
    );
}

/** The caller's collections, read lists and want-to-read in one version's syntax (./list-feeds.ts). */
function listFeedRoutes(services: Services, lists: OpdsListFeeds, writer: FeedWriter) {
  const urlsFor = (request: Request) => OpdsUrls.forRequest(request, services.config.application, writer.version);
  const detail = (summary: string) => ({ summary: `OPDS ${writer.version}: ${summary}`, tags: ["opds"] });
  const paged = { auth: "user" as const, query: pagingQuery };
  return new Elysia({ name: `opds-${writer.version}-list-feeds`, prefix: OPDS_ROOTS[writer.version] })
    .use(authPlugin(services, { basicChallenge: true }))
    .get("/collections", async ({ caller, query, request }) => writer.write(await lists.lists(caller.user, "collection", pageRequest(query)), urlsFor(request)), {
      ...paged,
      detail: detail("the caller's collections (paged)"),
    })
    .get("/collections/:id", async ({ caller, params, query, request }) => writer.write(await lists.collection(caller.user, params.id, pageRequest(query)), urlsFor(request)), {
      ...paged,
      params: IdParams,
      detail: detail("a collection's series in its order (paged)"),
    })
    .get("/readlists", async ({ caller, query, request }) => writer.write(await lists.lists(caller.user, "readlist", pageRequest(query)), urlsFor(request)), {
      ...paged,
      detail: detail("the caller's read lists (paged)"),
    })
    .get("/readlists/:id", async ({ caller, params, query, request }) => writer.write(await lists.readList(caller.user, params.id, pageRequest(query)), urlsFor(request)), {
      ...paged,
      params: IdParams,
      detail: detail("a read list's books in its order (paged)"),
    })
    .get("/want-to-read", async ({ caller, query, request }) => writer.write(await lists.wantToRead(caller.user, pageRequest(query)), urlsFor(request)), {
      ...paged,
      detail: detail("the caller's want-to-read series (paged)"),
    });
}
