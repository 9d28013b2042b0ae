/**
 * Issue #32: the start-up line names the addresses the server really listens on. Bound to `::`
 * (dual-stack) that is every IPv4 and every IPv6 address, the IPv6 ones bracketed; bound to
 * 0.0.0.0 only the IPv4 ones. Each address named (but link-local ones, whose zone fetch cannot
 * take) is opened to prove it.
 */
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../helpers/cli";

const children: Bun.Subprocess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGTERM");
    await child.exited;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts `longbox serve` bound to `host` on a free port; its "longbox listening" log line. */
async function listeningLine(host: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "longbox-listen-"));
  dirs.push(dir);
  writeFileSync(join(dir, "config.yaml"), JSON.stringify({ application: { host, port: 0, workers: 1, data_dir: join(dir, "data") } }));
  const child = Bun.spawn([process.execPath, join(PROJECT_ROOT, "src", "main.ts"), "serve", "--config", join(dir, "config.yaml")], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
    stdout: "pipe",
    stderr: "pipe",
  });
  children.push(child);
  const reader = child.stdout.getReader();
  let output = "";
  while (!/longbox listening[^\n]*\n/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the server stopped before listening:\n${output}\n${await new Response(child.stderr).text()}`);
    output += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return output.split("\n").find((line) => line.includes("longbox listening"))!;
}

const interfaceAddresses = (family: "IPv4" | "IPv6") =>
  Object.entries(networkInterfaces()).flatMap(([name, entries]) => (entries ?? []).filter((entry) => entry.family === family).map((entry) => ({ name, ...entry })));

/** The addresses of the log line's `addresses` field. */
const namedAddresses = (line: string): string[] => /addresses="?([^"]*?)"?(?: \w+=|$)/.exec(line)![1]!.split(" ");

async function opens(address: string): Promise<boolean> {
  const response = await fetch(`${address}/health`).catch(() => undefined);
  return response !== undefined && response.status < 500;
}

test("bound to :: the line names each IPv4 and each IPv6 address, bracketed, loopback first, and each one answers", async () => {
  const ipv6 = interfaceAddresses("IPv6");
  if (ipv6.length === 0) return; // a machine without IPv6 cannot bind ::
  const line = await listeningLine("::");
  const port = /url=http:\/\/127\.0\.0\.1:(\d+)/.exec(line)![1];
  const addresses = namedAddresses(line);
  const expected = [
    ...interfaceAddresses("IPv4").map((entry) => `http://${entry.address}:${port}`),
    ...ipv6.map((entry) => `http://[${entry.address}${entry.scopeid ? `%25${entry.name}` : ""}]:${port}`),
  ];
  expect([...addresses].sort()).toEqual([...new Set(expected)].sort());
  expect(addresses[0]).toBe(`http://127.0.0.1:${port}`);
  expect(addresses).toContain(`http://[::1]:${port}`);
  for (const address of addresses.filter((entry) => !entry.includes("%25"))) expect({ address, opens: await opens(address) }).toEqual({ address, opens: true });
});

test("bound to 0.0.0.0 the line names only the IPv4 addresses, which answer; the IPv6 loopback does not", async () => {
  const line = await listeningLine("0.0.0.0");
  const port = /url=http:\/\/127\.0\.0\.1:(\d+)/.exec(line)![1];
  const addresses = namedAddresses(line);
  expect([...addresses].sort()).toEqual([...new Set(interfaceAddresses("IPv4").map((entry) => `http://${entry.address}:${port}`))].sort());
  for (const address of addresses) expect(await opens(address)).toBe(true);
  if (interfaceAddresses("IPv6").length > 0) expect(await opens(`http://[::1]:${port}`)).toBe(false);
});

test("bound to one IPv6 address the line and the url name it in brackets", async () => {
  if (!interfaceAddresses("IPv6").some((entry) => entry.address === "::1")) return;
  const line = await listeningLine("::1");
  const port = /url=http:\/\/\[::1\]:(\d+)/.exec(line)![1];
  expect(namedAddresses(line)).toEqual([`http://[::1]:${port}`]);
  expect(await opens(`http://[::1]:${port}`)).toBe(true);
});
