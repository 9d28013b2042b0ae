/**
 * The suspicious-scan guard (issue #11, item 1): a library whose folder is a mount point that is
 * no longer mounted (it exists and is empty), or that lost more than the configured share of its
 * books in one scan, keeps its books; the scan fails with a reason, and only an admin's
 * confirmation lets a scan remove them. The mount is a real bind mount (the test needs root).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { adminSession, bearer, createUser, login } from "../helpers/auth";
import { asRoot } from "../helpers/disks";
import { booksOf, createLibrary, makeCbz, scan, tempFolder, waitForScan } from "../helpers/library";
import { forEachDatabase } from "../helpers/server";

const mounted = new Set<string>();
const mount = (source: string, target: string) => {
  asRoot("mount", "--bind", source, target);
  mounted.add(target);
};
const unmount = (target: string) => {
  asRoot("umount", target);
  mounted.delete(target);
};
afterAll(() => {
  for (const target of mounted) Bun.spawnSync(["umount", target]);
});

forEachDatabase("suspicious-scan guard", (server) => {
  let admin: Record<string, string>;
  let user: Record<string, string>;

  beforeAll(async () => {
    admin = bearer((await adminSession(server())).token);
    await createUser(server(), admin.authorization!.slice(7), "reader");
    user = bearer((await login(server(), "reader")).token);
  });

  test("an unmounted share keeps its books: the scan fails saying why, and a later scan of the remounted share finds them", async () => {
    const share = tempFolder("longbox-share-");
    for (let n = 1; n <= 4; n++) await makeCbz(join(share, "Saga", `Saga ${n}.cbz`), { seed: 100 + n });
    const mountPoint = join(tempFolder(), "nas");
    mkdirSync(mountPoint);
    mount(share, mountPoint);
    const library = await createLibrary(server(), admin, { path: mountPoint });
    expect((await scan(server(), admin, library.id)).booksAdded).toBe(4);

    unmount(mountPoint);
    const failed = await scan(server(), admin, library.id);
    expect(failed).toMatchObject({ status: "failed", booksDeleted: 0, removalsHeld: 4 });
    // A bind mount keeps its parent's device: mountinfo is what tells the scan it was a mount.
    expect(failed.failureReason).toContain("is not mounted now");
    expect(failed.failureReason).toContain("confirm-removals");
    expect(await booksOf(server(), admin, library.id)).toHaveLength(4);
    expect(await booksOf(server(), admin, library.id, true)).toHaveLength(0);
    // A purge of deleted books in between has nothing to lose.
    expect((await server().json("DELETE", `/api/v1/libraries/${library.id}/deleted-books`, undefined, admin)).body).toEqual({ removed: 0 });

    mount(share, mountPoint);
    expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksDeleted: 0, removalsHeld: 0 });
    unmount(mountPoint);
  });

  test("a share that was mounted and is not, over a folder holding some of its books, keeps the rest: the mount itself is checked", async () => {
    // The folder under the mount holds two of the share's three books (a partial local copy):
    // after the unmount only one book vanishes, far below the share rule, and the folder is not
    // empty. Only the lost mount tells the scan that the third book is not really gone.
    const mountPoint = tempFolder("longbox-mount-");
    await makeCbz(join(mountPoint, "Saga", "Saga 1.cbz"), { seed: 401 });
    await makeCbz(join(mountPoint, "Saga", "Saga 2.cbz"), { seed: 402 });
    asRoot("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint);
    mounted.add(mountPoint);
    for (let n = 1; n <= 3; n++) await makeCbz(join(mountPoint, "Saga", `Saga ${n}.cbz`), { seed: 400 + n });
    const library = await createLibrary(server(), admin, { path: mountPoint });
    expect((await scan(server(), admin, library.id)).booksAdded).toBe(3);

    unmount(mountPoint);
    const held = await scan(server(), admin, library.id);
    expect(held).toMatchObject({ status: "failed", booksDeleted: 0, removalsHeld: 1 });
    expect(held.failureReason).toContain("is not mounted now");
    expect(await booksOf(server(), admin, library.id)).toHaveLength(3);

    // The admin says the share is gone for good: the scan removes the book and the library is
    // no longer taken for a mount point.
    const confirmed = await server().json("POST", `/api/v1/libraries/${library.id}/scan/confirm-removals`, undefined, admin);
    expect(await waitForScan(server(), admin, library.id, confirmed.body.scanId)).toMatchObject({ status: "completed", booksDeleted: 1 });
    await makeCbz(join(mountPoint, "Saga", "Saga 4.cbz"), { seed: 404 });
    expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksAdded: 1 });
  });

  test("losing more than half the books waits for an admin, who confirms through the API", async () => {
    const root = tempFolder();
    for (let n = 1; n <= 4; n++) await makeCbz(join(root, "Saga", `Saga ${n}.cbz`), { seed: 200 + n });
    const library = await createLibrary(server(), admin, { path: root });
    expect((await scan(server(), admin, library.id)).booksAdded).toBe(4);

    // No confirmation is pending yet.
    expect((await server().json("POST", `/api/v1/libraries/${library.id}/scan/confirm-removals`, undefined, admin)).status).toBe(409);

    // One of four is an ordinary deletion.
    rmSync(join(root, "Saga", "Saga 4.cbz"));
    expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksDeleted: 1 });
    // Two of the remaining three is more than half.
    rmSync(join(root, "Saga", "Saga 3.cbz"));
    rmSync(join(root, "Saga", "Saga 2.cbz"));
    const held = await scan(server(), admin, library.id);
    expect(held).toMatchObject({ status: "failed", booksDeleted: 0, removalsHeld: 2 });
    expect(held.failureReason).toContain("2 of 3 books");
    expect(await booksOf(server(), admin, library.id)).toHaveLength(3);

    // Not for ordinary users.
    expect((await server().json("POST", `/api/v1/libraries/${library.id}/scan/confirm-removals`, undefined, user)).status).toBe(403);
    const confirmed = await server().json("POST", `/api/v1/libraries/${library.id}/scan/confirm-removals`, undefined, admin);
    expect(confirmed.status).toBe(202);
    const done = await waitForScan(server(), admin, library.id, confirmed.body.scanId);
    expect(done).toMatchObject({ status: "completed", booksDeleted: 2, removalsHeld: 0 });
    expect((await booksOf(server(), admin, library.id)).map((book) => book.title)).toEqual(["Saga 1"]);
  });
});

forEachDatabase(
  "suspicious-scan guard, configured share",
  (server) => {
    test("scanner.max_removal_percent raises the share removed without confirmation", async () => {
      const admin = bearer((await adminSession(server())).token);
      const root = tempFolder();
      for (let n = 1; n <= 4; n++) await makeCbz(join(root, "Saga", `Saga ${n}.cbz`), { seed: 300 + n });
      const library = await createLibrary(server(), admin, { path: root });
      await scan(server(), admin, library.id);
      for (let n = 1; n <= 3; n++) rmSync(join(root, "Saga", `Saga ${n}.cbz`));
      expect(await scan(server(), admin, library.id)).toMatchObject({ status: "completed", booksDeleted: 3 });
    });
  },
  { scanner: { max_removal_percent: 80 } },
);
