/**
 * `longbox serve` processes name themselves after their role on Linux (issue 32, item 8), as
 * `ps -o comm` and /proc/PID/comm show them: `longbox` for the supervisor (role all),
 * `longbox-web` for the web processes it starts, `longbox-worker` for `--role worker`. From
 * source (as here) they all showed as `bun.exe`, the npm package's Bun executable.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { DATABASE_KINDS } from "../helpers/databases";
import { instancesOnOneDatabase, type Instances } from "../helpers/instances";
import { childrenOf, waitFor } from "../helpers/server-processes";

const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim();
const psName = (pid: number) => Bun.spawnSync(["ps", "-o", "comm=", "-p", String(pid)]).stdout.toString().trim();

for (const kind of DATABASE_KINDS) {
  describe.if(process.platform === "linux")(`process names [${kind}]`, () => {
    let instances: Instances;
    beforeAll(async () => {
      instances = await instancesOnOneDatabase(kind);
    });
    afterAll(async () => {
      await instances?.stop();
    });

    test("serve --workers 2: the supervisor is longbox and its web process longbox-web, for ps too", async () => {
      const supervisor = await instances.start("--workers", "2");
      const pid = supervisor.child.pid;
      expect(comm(pid)).toBe("longbox");
      expect(psName(pid)).toBe("longbox");
      let web: number[] = [];
      await waitFor(() => (web = childrenOf(pid)).length === 1 && comm(web[0]!) === "longbox-web", "the web process to name itself");
      expect(psName(web[0]!)).toBe("longbox-web");
    }, 60_000);

    test("serve --role worker is longbox-worker", async () => {
      const worker = await instances.start("--role", "worker");
      expect(comm(worker.child.pid)).toBe("longbox-worker");
    }, 60_000);
  });
}
