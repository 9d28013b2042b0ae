/**
 * The web readers' settings kept on the server: the caller's defaults, their settings per series
 * over the defaults, partial changes (null forgets a field), bad values refused with nothing
 * stored, series the caller cannot see unknown, and each user's settings their own.
 */
import { beforeAll, expect, test } from "bun:test";
import { forEachDatabase } from "../helpers/server";
import { bearer, hideSeriesFrom, scannedLibrary, type ScannedLibrary } from "./support";

forEachDatabase("reader settings", (server) => {
  let library: ScannedLibrary;
  beforeAll(async () => {
    library = await scannedLibrary(server(), {
      "Science Comics/Science Comics 001.cbz": "cbz/stump/science_comics_001.cbz",
      "Captain Science/Captain Science 001.cbr": "cbr/comicbox/Captain Science #001-cbi.cbr",
    });
  });
  const as = (token: string) => (method: string, path: string, body?: unknown) => server().json(method, path, body, bearer(token));

  test("defaults, then a series' own settings over them; a change names only what it changes and null forgets", async () => {
    const reader = as(library.readerToken);
    const seriesId = library.books["Science Comics 001.cbz"]!.seriesId;
    expect(await reader("GET", "/api/v1/reader-settings")).toMatchObject({ status: 200, body: {} });
    expect(await reader("PATCH", "/api/v1/reader-settings", { fit: "width", epubSize: 120 })).toMatchObject({ status: 200, body: { fit: "width", epubSize: 120 } });
    expect((await reader("PATCH", "/api/v1/reader-settings", { epubTheme: "dark" })).body).toEqual({ fit: "width", epubSize: 120, epubTheme: "dark" });
    expect((await reader("GET", `/api/v1/series/${seriesId}/reader-settings`)).body).toEqual({
      series: {},
      effective: { fit: "width", epubSize: 120, epubTheme: "dark" },
    });
    const changed = await reader("PATCH", `/api/v1/series/${seriesId}/reader-settings`, { mode: "rtl", fit: "height" });
    expect(changed).toMatchObject({ status: 200, body: { series: { mode: "rtl", fit: "height" }, effective: { mode: "rtl", fit: "height", epubSize: 120, epubTheme: "dark" } } });
    expect((await reader("PATCH", `/api/v1/series/${seriesId}/reader-settings`, { fit: null })).body).toEqual({
      series: { mode: "rtl" },
      effective: { mode: "rtl", fit: "width", epubSize: 120, epubTheme: "dark" },
    });
    // Another series is untouched; the defaults did not change.
    const otherSeries = library.books["Captain Science 001.cbr"]!.seriesId;
    expect((await reader("GET", `/api/v1/series/${otherSeries}/reader-settings`)).body.series).toEqual({});
    expect((await reader("GET", "/api/v1/reader-settings")).body).toEqual({ fit: "width", epubSize: 120, epubTheme: "dark" });
    // Forgetting the series' settings leaves the defaults.
    expect((await reader("DELETE", `/api/v1/series/${seriesId}/reader-settings`)).status).toBe(204);
    expect((await reader("GET", `/api/v1/series/${seriesId}/reader-settings`)).body).toEqual({
      series: {},
      effective: { fit: "width", epubSize: 120, epubTheme: "dark" },
    });
    // Each user has their own.
    expect((await as(library.adminToken)("GET", "/api/v1/reader-settings")).body).toEqual({});
  });

  test("bad values are refused and nothing is stored, unknown fields dropped; unknown or hidden series are 404; credentials required", async () => {
    const reader = as(library.readerToken);
    const seriesId = library.books["Captain Science 001.cbr"]!.seriesId;
    const before = (await reader("GET", "/api/v1/reader-settings")).body;
    for (const bad of [{ mode: "sideways" }, { epubSize: 5000 }, { epubSize: 1.5 }, { fit: 3 }, { mode: "rtl", fit: "sideways" }]) {
      const answer = await reader("PATCH", "/api/v1/reader-settings", bad);
      expect({ bad, refused: answer.status === 400 }).toEqual({ bad, refused: true });
      expect([400]).toContain((await reader("PATCH", `/api/v1/series/${seriesId}/reader-settings`, bad)).status);
    }
    expect((await reader("GET", "/api/v1/reader-settings")).body).toEqual(before);
    expect((await reader("GET", `/api/v1/series/${seriesId}/reader-settings`)).body.series).toEqual({});
    expect((await reader("PATCH", "/api/v1/reader-settings", { colour: "red" })).body).toEqual(before);

    const unknown = crypto.randomUUID();
    expect((await reader("GET", `/api/v1/series/${unknown}/reader-settings`)).status).toBe(404);
    expect((await reader("PATCH", `/api/v1/series/${unknown}/reader-settings`, { mode: "rtl" })).status).toBe(404);
    expect((await reader("DELETE", `/api/v1/series/${unknown}/reader-settings`)).status).toBe(404);
    expect([400]).toContain((await reader("GET", "/api/v1/series/not-a-uuid/reader-settings")).status);
    const hidden = library.books["Science Comics 001.cbz"]!.seriesId;
    await hideSeriesFrom(server(), library.readerId, hidden);
    expect((await reader("GET", `/api/v1/series/${hidden}/reader-settings`)).status).toBe(404);
    expect((await reader("PATCH", `/api/v1/series/${hidden}/reader-settings`, { mode: "rtl" })).status).toBe(404);

    expect((await server().json("GET", "/api/v1/reader-settings")).status).toBe(401);
    expect((await server().json("PATCH", `/api/v1/series/${seriesId}/reader-settings`, { mode: "rtl" })).status).toBe(401);
  });

  test("changes sent at once all survive (each merged into the stored settings under a lock)", async () => {
    const admin = as(library.adminToken);
    const seriesId = library.books["Captain Science 001.cbr"]!.seriesId;
    const changes = [{ mode: "vertical" }, { fit: "original" }, { spread: "double" }, { epubFont: "mono" }, { epubSize: 90 }, { epubTheme: "sepia" }];
    for (const path of ["/api/v1/reader-settings", `/api/v1/series/${seriesId}/reader-settings`]) {
      const answers = await Promise.all(changes.map((change) => admin("PATCH", path, change)));
      expect(answers.map((answer) => answer.status)).toEqual(changes.map(() => 200));
    }
    const expected = Object.assign({}, ...changes);
    expect((await admin("GET", "/api/v1/reader-settings")).body).toEqual(expected);
    expect((await admin("GET", `/api/v1/series/${seriesId}/reader-settings`)).body.series).toEqual(expected);
  });

  test("the routes are in the OpenAPI document", async () => {
    const document = (await (await server().fetch("/api/docs/json")).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(document.paths["/api/v1/reader-settings"] ?? {}).sort()).toEqual(["get", "patch"]);
    expect(Object.keys(document.paths["/api/v1/series/{id}/reader-settings"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
  });
});
