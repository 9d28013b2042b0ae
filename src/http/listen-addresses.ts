/**
 * The addresses a server bound to `host` can be opened at, for the start-up log line, so a NAS
 * user sees what to open from another device. A server bound to 0.0.0.0 listens on each of this
 * machine's IPv4 addresses; one bound to `::` (or to no host at all) listens on each IPv6 address
 * and, dual-stack, on each IPv4 one too: Bun's sockets turn IPV6_V6ONLY off whatever the system
 * default. Loopback comes first, then IPv4 before IPv6; IPv6 addresses are bracketed, and a
 * link-local one carries its interface as the URL's zone (`%25eth0`, RFC 6874), without which
 * it cannot be reached.
 */
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

const IPV4_EVERYWHERE = "0.0.0.0";
const DUAL_STACK_EVERYWHERE = new Set(["::", ""]);

/** `host` as a URL's host: an IPv6 literal in brackets. */
const urlHost = (host: string): string => (host.includes(":") ? `[${host}]` : host);

/** The address this machine itself opens the server at: loopback when bound to every interface. */
export function localUrl(host: string, port: number): string {
  return `http://${host === IPV4_EVERYWHERE || DUAL_STACK_EVERYWHERE.has(host) ? "127.0.0.1" : urlHost(host)}:${port}`;
}

export function listenAddresses(host: string, port: number, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): string[] {
  const families = host === IPV4_EVERYWHERE ? ["IPv4"] : DUAL_STACK_EVERYWHERE.has(host) ? ["IPv4", "IPv6"] : undefined;
  if (!families) return [`http://${urlHost(host)}:${port}`];
  const addresses = Object.entries(interfaces)
    .flatMap(([name, entries]) => (entries ?? []).map((entry) => ({ name, ...entry })))
    .filter((entry) => families.includes(entry.family))
    .sort((a, b) => Number(b.internal) - Number(a.internal) || families.indexOf(a.family) - families.indexOf(b.family))
    .map((entry) => {
      const zone = entry.family === "IPv6" && entry.scopeid ? `%25${entry.name}` : "";
      return `http://${urlHost(`${entry.address}${zone}`)}:${port}`;
    });
  return [...new Set(addresses.length > 0 ? addresses : [localUrl(host, port)])];
}
