import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attemptOf, LoginThrottle } from "../../src/auth/login-throttle";
import { loadConfig } from "../../src/config/load";
import { openDataLayer, type DataLayer, type Repositories } from "../../src/db";
import { CredentialEvents } from "../../src/events/credential-events";
import { createTestDatabase, DATABASE_KINDS, type TestDatabase } from "../helpers/databases";

/**
 * The throttle's remembered decisions, which let HTTP Basic (a decision per page) skip the
 * database: a failure counted for other addresses and accounts (a password spray) must not make
 * a reader's requests read the database again, nor spoil a decision being read meanwhile; a
 * failure about the reader's own address or account must. The throttle runs on the real
 * repositories of each database; the reads of `loginFailures.recent` are counted, and the
 * first one can be held open so that a failure is counted while it is in flight.
 */
const LIMITS = { maxFailures: 3, maxAddressFailures: 5, windowMs: 60_000 };

for (const kind of DATABASE_KINDS) {
  describe(`login throttle decisions [${kind}]`, () => {
    let target: TestDatabase;
    let layer: DataLayer;
    let reads = 0;
    let holdNextRead: Promise<void> | undefined;
    let throttle: LoginThrottle;

    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), "longbox-throttle-"));
      target = await createTestDatabase(kind, dir);
      const env: Record<string, string> =
        kind === "postgres"
          ? { SERVICE_DATABASE__TYPE: "postgres", SERVICE_DATABASE__POSTGRES__URL: (target.target as { postgresUrl: string }).postgresUrl }
          : {};
      layer = openDataLayer(loadConfig({ path: "/nonexistent/config.yaml", env, defaultsIfMissing: true }).config, (target.target as { sqliteFile?: string }).sqliteFile ?? join(dir, "longbox.db"));
      await layer.database.migrate();
      const failures = layer.repositories.loginFailures;
      const counted: Pick<Repositories, "loginFailures" | "trustedSignIns"> = {
        trustedSignIns: layer.repositories.trustedSignIns,
        loginFailures: Object.assign(Object.create(failures), {
          recent: async (...args: Parameters<typeof failures.recent>) => {
            reads++;
            const held = holdNextRead;
            holdNextRead = undefined;
            const result = await failures.recent(...args);
            await held;
            return result;
          },
        }),
      };
      throttle = new LoginThrottle(counted, LIMITS, new CredentialEvents());
    });
    afterAll(async () => {
      await layer?.database.close();
      await target?.drop();
    });

    const reader = attemptOf("reader", "192.0.2.10");
    /** Reads the throttle counted while `run` ran. */
    const readsDuring = async (run: () => Promise<void>) => {
      const before = reads;
      await run();
      return reads - before;
    };

    test("a remembered decision answers the next requests without reading the database", async () => {
      expect(await readsDuring(() => throttle.assertAllowed(reader))).toBe(1);
      expect(await readsDuring(async () => {
        for (let i = 0; i < 20; i++) await throttle.assertAllowed(reader);
      })).toBe(0);
    });

    test("failures sprayed over other addresses and accounts leave the reader's decision alone, even one being read", async () => {
      // The reader's decision is read again (held open) while a spray is counted.
      await new Promise((resolve) => setTimeout(resolve, 2100)); // past the decision's maximum age
      let release!: () => void;
      holdNextRead = new Promise((resolve) => (release = resolve));
      const inFlight = throttle.assertAllowed(reader);
      for (let i = 0; i < 10; i++) await throttle.recordFailure(attemptOf(`victim-${i}`, `198.51.100.${i}`));
      release();
      await inFlight;
      expect(await readsDuring(async () => {
        for (let i = 0; i < 20; i++) {
          await throttle.recordFailure(attemptOf(`victim-${i}`, `203.0.113.${i}`));
          await throttle.assertAllowed(reader);
        }
      })).toBe(0);
    });

    test("a failure about the reader's own account or address is read again, also when it lands during a read", async () => {
      await throttle.recordFailure(attemptOf("READER", "198.51.100.99"));
      expect(await readsDuring(() => throttle.assertAllowed(reader))).toBe(1);
      await throttle.recordFailure(attemptOf("someone-else", reader.address));
      expect(await readsDuring(() => throttle.assertAllowed(reader))).toBe(1);
      // Counted while the reader's decision is being read: that read is not kept.
      await new Promise((resolve) => setTimeout(resolve, 2100));
      let release!: () => void;
      holdNextRead = new Promise((resolve) => (release = resolve));
      const inFlight = throttle.assertAllowed(reader);
      await throttle.recordFailure(attemptOf("reader", "198.51.100.98"));
      release();
      await inFlight;
      expect(await readsDuring(() => throttle.assertAllowed(reader))).toBe(1);
      expect(await readsDuring(() => throttle.assertAllowed(reader))).toBe(0);
    });

    test("the pair over its limit is refused, and the refusal answers without reading until it ends", async () => {
      const guesser = attemptOf("reader", "192.0.2.66");
      for (let i = 0; i < LIMITS.maxFailures; i++) await throttle.recordFailure(guesser);
      await expect(throttle.assertAllowed(guesser)).rejects.toThrow("too many failed sign-in attempts");
      expect(await readsDuring(async () => {
        await expect(throttle.assertAllowed(guesser)).rejects.toThrow("too many");
      })).toBe(0);
    });
  });
}
