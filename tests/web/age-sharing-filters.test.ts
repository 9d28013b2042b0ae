/**
 * The web catalogue's age-rating and sharing-tag filters (issue 32) over HTTP on each database:
 * age rating keeps series (and a series' books) rated at most the chosen age, as ComicInfo's
 * AgeRating reads (an unrated series is left out); the sharing tag keeps an admin's series
 * carrying it; both combine with the other filters and stay in the URL. A non-admin is offered
 * no sharing-tag filter, and one given in the URL changes nothing for them.
 */
import { beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { adminSession, bearer, createUser, webSignIn } from "../helpers/auth";
import { comicInfo, createLibrary, makeCbz, scan, tempFolder } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

/** Series name: the AgeRating of each of its books ("" for none) and their genre. */
const SERIES: Record<string, { ratings: string[]; genre: string }> = {
  Kids: { ratings: ["Everyone", "G"], genre: "Fun" },
  Teens: { ratings: ["Teen", "Everyone"], genre: "Drama" },
  Grown: { ratings: ["Mature 17+", "Teen"], genre: "Drama" },
  Unrated: { ratings: ["", "Rating Pending"], genre: "Fun" },
};

/** The series (or book) titles of a grid page or fragment, sorted. */
const titles = (html: string) => [...html.matchAll(/class="card-title">([^<]*)</g)].map((match) => match[1]!).sort();

forEachDatabase("age-rating and sharing-tag filters", (server) => {
  let adminCookie: string;
  let userCookie: string;
  let libraryId: string;
  let familyTag: string;
  const seriesIds: Record<string, string> = {};

  const grid = async (cookie: string, query: string, fragment = false) => {
    const response = await server().fetch(`/libraries/${libraryId}?${query}`, { headers: { cookie, ...(fragment ? { "hx-request": "true" } : {}) } });
    expect(response.status).toBe(200);
    return { html: await response.text(), pushed: response.headers.get("hx-push-url") };
  };

  beforeAll(async () => {
    const admin = bearer((await adminSession(server())).token);
    const root = tempFolder();
    let seed = 500;
    for (const [name, { ratings, genre }] of Object.entries(SERIES)) {
      for (const [index, rating] of ratings.entries()) {
        const fields: Record<string, string | number> = { Series: name, Number: index + 1, Title: `${name} ${index + 1}`, Genre: genre };
        if (rating) fields.AgeRating = rating;
        await makeCbz(join(root, name, `${name} ${index + 1}.cbz`), { seed: seed++, comicInfo: comicInfo(fields) });
      }
    }
    libraryId = (await createLibrary(server(), admin, { name: "Rated", path: root })).id;
    expect((await scan(server(), admin, libraryId)).status).toBe("completed");
    const series = await server().json("GET", `/api/v1/series?libraryId=${libraryId}&pageSize=50`, undefined, admin);
    for (const entry of series.body.data as { id: string; name: string }[]) seriesIds[entry.name] = entry.id;
    familyTag = (await server().json("POST", "/api/v1/sharing-tags", { name: "family" }, admin)).body.id;
    for (const name of ["Kids", "Teens"]) {
      expect((await server().json("PUT", `/api/v1/series/${seriesIds[name]}/sharing-tags`, { sharingTagIds: [familyTag] }, admin)).status).toBe(200);
    }
    await createUser(server(), (await adminSession(server())).token, "reader");
    adminCookie = await webSignIn(server(), "admin");
    userCookie = await webSignIn(server(), "reader");
  }, 60_000);

  test("age rating keeps the series rated at most that age; unrated series are left out", async () => {
    expect(titles((await grid(adminCookie, "")).html)).toEqual(["Grown", "Kids", "Teens", "Unrated"]);
    expect(titles((await grid(adminCookie, "age_rating=13")).html)).toEqual(["Kids", "Teens"]);
    expect(titles((await grid(adminCookie, "age_rating=0")).html)).toEqual(["Kids"]);
    expect(titles((await grid(adminCookie, "age_rating=18")).html)).toEqual(["Grown", "Kids", "Teens"]);
    // With the others: genre and read status.
    expect(titles((await grid(adminCookie, "age_rating=17&genre=drama")).html)).toEqual(["Grown", "Teens"]);
    expect(titles((await grid(adminCookie, "age_rating=17&genre=drama&status=unread")).html)).toEqual(["Grown", "Teens"]);
    expect(titles((await grid(adminCookie, "age_rating=17&status=read")).html)).toEqual([]);
    // The form shows the choice; a changed filter puts it in the address bar.
    expect((await grid(adminCookie, "age_rating=13")).html).toMatch(/<option value="13" selected>/);
    expect((await grid(adminCookie, "age_rating=13&genre=&tag=", true)).pushed).toBe(`/libraries/${libraryId}?sort=name%2Casc&age_rating=13`);
    // A series' books: the ones rated at most that age.
    const books = await server().fetch(`/series/${seriesIds.Teens}?age_rating=0`, { headers: { cookie: adminCookie } });
    expect(titles(await books.text())).toEqual(["Teens 2"]);
    // A bad age is refused, not a 500.
    expect((await server().fetch(`/libraries/${libraryId}?age_rating=old`, { headers: { cookie: adminCookie } })).status).toBe(400);
  });

  test("an admin filters by sharing tag, combined with the others and kept in the URL", async () => {
    const page = (await grid(adminCookie, "")).html;
    expect(page).toContain('id="filter-sharing-tag"');
    expect(page).toContain(`<option value="${familyTag}">family</option>`);
    expect(titles((await grid(adminCookie, `sharing_tag=${familyTag}`)).html)).toEqual(["Kids", "Teens"]);
    expect(titles((await grid(adminCookie, `sharing_tag=${familyTag}&age_rating=0`)).html)).toEqual(["Kids"]);
    expect(titles((await grid(adminCookie, `sharing_tag=${familyTag}&genre=drama`)).html)).toEqual(["Teens"]);
    expect((await grid(adminCookie, `sharing_tag=${familyTag}`, true)).pushed).toBe(`/libraries/${libraryId}?sort=name%2Casc&sharing_tag=${familyTag}`);
    expect((await grid(adminCookie, `sharing_tag=${familyTag}`)).html).toContain(`<option value="${familyTag}" selected>family</option>`);
  });

  test("a non-admin is offered no sharing-tag filter, and one in the URL changes nothing", async () => {
    const { html } = await grid(userCookie, "");
    expect(html).not.toContain("filter-sharing-tag");
    expect(html).not.toContain(familyTag);
    expect(html).toContain('id="filter-age-rating"');
    const unfiltered = titles(html);
    expect(unfiltered.length).toBeGreaterThan(0);
    const tagged = await grid(userCookie, `sharing_tag=${familyTag}`, true);
    expect(titles(tagged.html)).toEqual(unfiltered);
    expect(tagged.pushed).not.toContain("sharing_tag");
    expect(titles((await grid(userCookie, "age_rating=0")).html)).toEqual(unfiltered.filter((name) => name === "Kids"));
  });
});
