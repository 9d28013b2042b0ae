/**
 * The admin server page (GET /admin) over HTTP on each database (issue 32, item 8): its
 * thumbnail figure is the installation's, read from the database (books that have one), so a
 * web process that makes none (role web, as under `serve --workers`) shows the thumbnails
 * another process made; what this process made is labelled as such.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { adminSession, bearer, webSignIn } from "../helpers/auth";
import { comicsFolder, createLibrary, scan } from "../helpers/library";
import { forEachDatabase, startSecondInstance, type SecondInstance, type TestServer } from "../helpers/server";
import { waitFor } from "../helpers/server-processes";

const BOOKS = 6;

/** The text of the page's Thumbnails figure, spaces collapsed. */
async function thumbnailsFigure(server: Pick<TestServer, "fetch">, cookie: string): Promise<string> {
  const response = await server.fetch("/admin", { headers: { cookie } });
  expect(response.status).toBe(200);
  const html = await response.text();
  const figure = /<div class="stat"[^>]*><span class="muted">Thumbnails<\/span>[\s\S]*?<\/div>/.exec(html)?.[0] ?? "";
  return figure.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
}

forEachDatabase("admin server page", (server: () => TestServer) => {
  let web: SecondInstance;

  beforeAll(async () => {
    const admin = bearer((await adminSession(server())).token);
    const root = await comicsFolder(BOOKS, { pages: 2, seed: 32_008, series: 2 });
    const library = await createLibrary(server(), admin, { name: "thumbnail count", path: root });
    expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksAdded: BOOKS });
    const thumbnails = server().server.services.thumbnails;
    await waitFor(async () => (await thumbnails.countPending()) === 0 && thumbnails.made === BOOKS, "every thumbnail to be made", 60_000);
    web = await startSecondInstance(server());
  }, 90_000);
  afterAll(async () => {
    await web?.stop();
  });

  test("the process that made the thumbnails shows them all, and its own count labelled as its own", async () => {
    const figure = await thumbnailsFigure(server(), await webSignIn(server(), "admin"));
    expect(figure).toContain(`Thumbnails ${BOOKS} of ${BOOKS} books`);
    expect(figure).toContain(`0 pending · this process made ${BOOKS}, 0 failed, since it started`);
  });

  test("a web process that made none shows the installation's thumbnails, not its own zero", async () => {
    const figure = await thumbnailsFigure(web, await webSignIn(web, "admin"));
    expect(figure).toContain(`Thumbnails ${BOOKS} of ${BOOKS} books`);
    expect(figure).toContain("this process made 0, 0 failed, since it started");
  });
});
