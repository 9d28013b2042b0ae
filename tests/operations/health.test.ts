/**
 * GET /health is open: a flood of it must not cost a database write each. SQLite only: there
 * the write check is a real write (PostgreSQL's asks the server whether it is read-only).
 * Whether health still sees a database that cannot be written or answer is in
 * unwritable-database.test.ts, database-outage.test.ts and tests/http/core.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database as SqliteClient } from "bun:sqlite";
import { startTestServer, type TestServer } from "../helpers/server";

describe("health on SQLite", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer("sqlite");
  });
  afterAll(() => server?.stop());

  test("a flood of /health answers ok and changes nothing in the database file", async () => {
    expect((await server.json("GET", "/health")).body).toMatchObject({ status: "ok", database: "ok" });
    // data_version moves whenever another connection commits a change to the file.
    const observer = new SqliteClient(server.server.services.config.database.sqlite.path, { readonly: true });
    try {
      const dataVersion = () => (observer.query("PRAGMA data_version").get() as { data_version: number }).data_version;
      const before = dataVersion();
      const answers = await Promise.all(Array.from({ length: 50 }, () => server.json("GET", "/health")));
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
      expect(dataVersion()).toBe(before);
    } finally {
      observer.close();
    }
  });
});
