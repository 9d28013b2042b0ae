import { beforeAll, expect, test } from "bun:test";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { scannedLibrary } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const GOOD_CBZ = "cbz/comicbox/macos_resource_fork.cbz";
const MISSING_ID = "01890000-0000-7000-8000-000000000000";

forEachDatabase("Sharing tags, series tags and user grants", (server) => {
  let admin: Record<string, string>;
  let reader: Record<string, string>;
  let readerId: string;
  let alphaId: string;
  let betaId: string;

  const call = (method: string, path: string, body?: unknown, headers = admin) => server().json(method, path, body, headers);
  const createTag = async (name: string, description?: string) => {
    const created = await call("POST", "/api/v1/sharing-tags", description === undefined ? { name } : { name, description });
    expect(created.status).toBe(201);
    return created.body as { id: string; name: string };
  };

  beforeAll(async () => {
    const adminToken = (await adminSession(server())).token;
    admin = bearer(adminToken);
    readerId = await createUser(server(), adminToken, "reader");
    reader = bearer((await login(server(), "reader")).token);
    await scannedLibrary(server(), adminToken, "Tagged", {
      "Alpha/Alpha 001.cbz": GOOD_CBZ,
      "Beta/Beta 001.cbz": GOOD_CBZ,
    });
    const books = await call("GET", "/api/v1/books");
    const seriesByName = new Map<string, string>(books.body.data.map((book: { seriesName: string; seriesId: string }) => [book.seriesName, book.seriesId]));
    alphaId = seriesByName.get("Alpha")!;
    betaId = seriesByName.get("Beta")!;
    expect(alphaId).toBeString();
    expect(betaId).toBeString();
  });

  test("POST creates a tag (201, SharingTagDto); the name is trimmed, a blank description is null", async () => {
    const created = await call("POST", "/api/v1/sharing-tags", { name: "  Kids  ", description: " " });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Kids",
      description: null,
      seriesCount: 0,
      userCount: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await call("GET", `/api/v1/sharing-tags/${created.body.id}`)).body).toEqual(created.body);
  });

  test("a duplicate name is 409, on create and on rename; a blank name is 400", async () => {
    const first = await createTag("Duplicate me");
    const second = await createTag("Other name");
    const again = await call("POST", "/api/v1/sharing-tags", { name: "Duplicate me" });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "Conflict", details: { fields: { name: "taken" } } });
    const rename = await call("PATCH", `/api/v1/sharing-tags/${second.id}`, { name: "Duplicate me" });
    expect(rename.status).toBe(409);
    expect((await call("PATCH", `/api/v1/sharing-tags/${first.id}`, { name: "Duplicate me" })).status).toBe(200);
    expect((await call("POST", "/api/v1/sharing-tags", { name: "   " })).status).toBe(400);
    expect((await call("POST", "/api/v1/sharing-tags", {})).status).toBe(400);
  });

  test("PATCH changes name and description; unknown ids are 404, malformed ones 400", async () => {
    const tag = await createTag("Before", "old text");
    const patched = await call("PATCH", `/api/v1/sharing-tags/${tag.id}`, { name: "After", description: "new text" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: tag.id, name: "After", description: "new text" });
    const cleared = await call("PATCH", `/api/v1/sharing-tags/${tag.id}`, { description: null });
    expect(cleared.body).toMatchObject({ name: "After", description: null });
    expect((await call("GET", `/api/v1/sharing-tags/${MISSING_ID}`)).status).toBe(404);
    expect((await call("PATCH", `/api/v1/sharing-tags/${MISSING_ID}`, { name: "x" })).status).toBe(404);
    expect((await call("DELETE", `/api/v1/sharing-tags/${MISSING_ID}`)).status).toBe(404);
    expect((await call("GET", "/api/v1/sharing-tags/not-a-uuid")).status).toBe(400);
  });

  test("GET lists tags by name as a PaginatedResponse", async () => {
    const page = await call("GET", "/api/v1/sharing-tags?pageSize=2");
    expect(page.status).toBe(200);
    const names = (await call("GET", "/api/v1/sharing-tags?pageSize=500")).body.data.map((tag: { name: string }) => tag.name);
    expect(names).toEqual([...names].sort());
    expect(page.body).toMatchObject({
      page: 1,
      pageSize: 2,
      total: names.length,
      totalPages: Math.ceil(names.length / 2),
      links: { prev: null, next: "/api/v1/sharing-tags?pageSize=2&page=2" },
    });
    expect(page.body.data).toHaveLength(2);
  });

  test("PUT /series/{id}/sharing-tags replaces the set; seriesCount follows", async () => {
    const red = await createTag("Red");
    const blue = await createTag("Blue");
    const first = await call("PUT", `/api/v1/series/${alphaId}/sharing-tags`, { sharingTagIds: [red.id, blue.id, red.id] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ seriesId: alphaId, sharingTags: [{ id: blue.id, name: "Blue" }, { id: red.id, name: "Red" }] });
    await call("PUT", `/api/v1/series/${betaId}/sharing-tags`, { sharingTagIds: [red.id] });
    expect((await call("GET", `/api/v1/sharing-tags/${red.id}`)).body.seriesCount).toBe(2);

    const replaced = await call("PUT", `/api/v1/series/${alphaId}/sharing-tags`, { sharingTagIds: [blue.id] });
    expect(replaced.body.sharingTags).toEqual([{ id: blue.id, name: "Blue" }]);
    expect((await call("GET", `/api/v1/series/${alphaId}/sharing-tags`)).body).toEqual(replaced.body);
    expect((await call("GET", `/api/v1/sharing-tags/${red.id}`)).body.seriesCount).toBe(1);

    await call("PUT", `/api/v1/series/${alphaId}/sharing-tags`, { sharingTagIds: [] });
    expect((await call("GET", `/api/v1/series/${alphaId}/sharing-tags`)).body.sharingTags).toEqual([]);
  });

  test("PUT /series/{id}/sharing-tags: an unknown tag is 422 and changes nothing; an unknown series 404", async () => {
    const kept = await createTag("Kept");
    await call("PUT", `/api/v1/series/${betaId}/sharing-tags`, { sharingTagIds: [kept.id] });
    const refused = await call("PUT", `/api/v1/series/${betaId}/sharing-tags`, { sharingTagIds: [MISSING_ID] });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: "UnprocessableEntity", details: { fields: { sharingTagIds: expect.stringContaining(MISSING_ID) } } });
    expect((await call("GET", `/api/v1/series/${betaId}/sharing-tags`)).body.sharingTags).toEqual([{ id: kept.id, name: "Kept" }]);
    expect((await call("PUT", `/api/v1/series/${MISSING_ID}/sharing-tags`, { sharingTagIds: [] })).status).toBe(404);
    expect((await call("PUT", `/api/v1/series/${betaId}/sharing-tags`, { sharingTagIds: ["nope"] })).status).toBe(400);
  });

  test("user grants: PUT upserts one grant, GET lists them, DELETE removes one; userCount follows", async () => {
    const comics = await createTag("Comics");
    const manga = await createTag("Manga");
    const grants = `/api/v1/users/${readerId}/sharing-tags`;
    expect((await call("GET", grants)).body).toEqual({ grants: [] });

    const allowed = await call("PUT", grants, { sharingTagId: comics.id, accessMode: "allow" });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toEqual({ grants: [{ sharingTagId: comics.id, sharingTagName: "Comics", accessMode: "allow" }] });
    await call("PUT", grants, { sharingTagId: manga.id, accessMode: "allow" });
    const changed = await call("PUT", grants, { sharingTagId: comics.id, accessMode: "deny" });
    expect(changed.body.grants).toEqual([
      { sharingTagId: comics.id, sharingTagName: "Comics", accessMode: "deny" },
      { sharingTagId: manga.id, sharingTagName: "Manga", accessMode: "allow" },
    ]);
    expect((await call("GET", `/api/v1/sharing-tags/${comics.id}`)).body.userCount).toBe(1);

    expect((await call("DELETE", `${grants}/${comics.id}`)).status).toBe(204);
    expect((await call("DELETE", `${grants}/${comics.id}`)).status).toBe(404);
    expect((await call("GET", grants)).body.grants).toEqual([{ sharingTagId: manga.id, sharingTagName: "Manga", accessMode: "allow" }]);
    expect((await call("GET", `/api/v1/sharing-tags/${comics.id}`)).body.userCount).toBe(0);

    expect((await call("PUT", grants, { sharingTagId: MISSING_ID, accessMode: "allow" })).status).toBe(422);
    expect((await call("PUT", grants, { sharingTagId: manga.id, accessMode: "maybe" })).status).toBe(400);
    expect((await call("GET", `/api/v1/users/${MISSING_ID}/sharing-tags`)).status).toBe(404);
    expect((await call("PUT", `/api/v1/users/${MISSING_ID}/sharing-tags`, { sharingTagId: manga.id, accessMode: "allow" })).status).toBe(404);
    await call("DELETE", `${grants}/${manga.id}`);
  });

  test("deleting a tag removes its series links and grants", async () => {
    const doomed = await createTag("Doomed");
    await call("PUT", `/api/v1/series/${betaId}/sharing-tags`, { sharingTagIds: [doomed.id] });
    await call("PUT", `/api/v1/users/${readerId}/sharing-tags`, { sharingTagId: doomed.id, accessMode: "allow" });
    expect((await call("DELETE", `/api/v1/sharing-tags/${doomed.id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/sharing-tags/${doomed.id}`)).status).toBe(404);
    expect((await call("GET", `/api/v1/series/${betaId}/sharing-tags`)).body.sharingTags).toEqual([]);
    expect((await call("GET", `/api/v1/users/${readerId}/sharing-tags`)).body.grants).toEqual([]);
  });

  test("every sharing-tag route is admin only: 403 for a user, 401 without credentials", async () => {
    const tag = await createTag("Admins only");
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/v1/sharing-tags"],
      ["POST", "/api/v1/sharing-tags", { name: "sneaky" }],
      ["GET", `/api/v1/sharing-tags/${tag.id}`],
      ["PATCH", `/api/v1/sharing-tags/${tag.id}`, { name: "sneaky" }],
      ["DELETE", `/api/v1/sharing-tags/${tag.id}`],
      ["GET", `/api/v1/series/${alphaId}/sharing-tags`],
      ["PUT", `/api/v1/series/${alphaId}/sharing-tags`, { sharingTagIds: [] }],
      ["GET", `/api/v1/users/${readerId}/sharing-tags`],
      ["PUT", `/api/v1/users/${readerId}/sharing-tags`, { sharingTagId: tag.id, accessMode: "allow" }],
      ["DELETE", `/api/v1/users/${readerId}/sharing-tags/${tag.id}`],
    ];
    for (const [method, path, body] of routes) {
      expect({ method, path, status: (await call(method, path, body, reader)).status }).toEqual({ method, path, status: 403 });
      expect({ method, path, status: (await call(method, path, body, {})).status }).toEqual({ method, path, status: 401 });
    }
    expect((await call("GET", `/api/v1/sharing-tags/${tag.id}`)).body.name).toBe("Admins only");
  });
});
