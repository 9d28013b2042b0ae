/**
 * The name `ps`, `top` and `/proc/PID/comm` show for a `serve` process: `longbox` (role all),
 * `longbox-web` or `longbox-worker`, so the processes of an installation can be told apart.
 * Without it they show as the executable's name (`bun.exe`, the npm package's Bun, when run
 * from source; the binary's file name, the same for every role, when compiled). Bun's `process.title` changes only the value
 * JavaScript reads (Bun 1.4.5: /proc/self/comm stays as it was), but on Linux a process may
 * rename itself by writing its `/proc/self/comm` (the main thread's name, 15 bytes at most),
 * which is what `ps -o comm` shows. Elsewhere the name is left as it is.
 */
import { writeFileSync } from "node:fs";
import type { ServerRole } from "../server";

/** Names this process after its role (Linux only); a name that cannot be set is only cosmetic. */
export function nameThisProcess(role: ServerRole): void {
  const name = role === "all" ? "longbox" : `longbox-${role}`;
  process.title = name;
  if (process.platform !== "linux") return;
  try {
    writeFileSync("/proc/self/comm", name);
  } catch {
    // /proc not mounted, or not writable here: ps shows the executable's name, nothing else changes.
  }
}
