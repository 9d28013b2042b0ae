/**
 * The addresses a server bound to `host` can be opened at, for the start-up log line: a server
 * bound to every interface (0.0.0.0, ::) is reachable at each of this machine's IPv4 addresses,
 * loopback first, so a NAS user sees what to open from another device.
 */
import { networkInterfaces } from "node:os";

const EVERY_INTERFACE = new Set(["0.0.0.0", "::", ""]);

export function listenAddresses(host: string, port: number): string[] {
  if (!EVERY_INTERFACE.has(host)) return [`http://${host.includes(":") ? `[${host}]` : host}:${port}`];
  const addresses = Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === "IPv4")
    .sort((a, b) => Number(b.internal) - Number(a.internal))
    .map((entry) => `http://${entry.address}:${port}`);
  return [...new Set(addresses.length > 0 ? addresses : [`http://127.0.0.1:${port}`])];
}
