/**
 * Where OPDS links point: absolute URLs from `application.base_url` when it is set; else from
 * the request, where X-Forwarded-Proto/-Host count only with `application.trust_proxy`. And
 * with `opds.enabled: false` there are no OPDS routes at all.
 */
import { beforeAll, expect, test } from "bun:test";
import { adminSession, basic, PASSWORD } from "../helpers/auth";
import { forEachDatabase, type TestServer } from "../helpers/server";
import { parseFeed } from "./support";

const FORWARDED = { "x-forwarded-proto": "https", "x-forwarded-host": "books.example.org" };

/** Every URL in the root feed of both versions and in the OpenSearch description. */
async function linksOf(server: TestServer, headers: Record<string, string>): Promise<string[]> {
  const credentials = { ...basic("admin", PASSWORD), ...headers };
  const atom = parseFeed(await (await server.fetch("/opds/v1.2/catalog", { headers: credentials })).text());
  const json = (await (await server.fetch("/opds/v2/catalog", { headers: credentials })).json()) as {
    links: { href: string }[];
    navigation: { href: string }[];
  };
  const description = await (await server.fetch("/opds/v1.2/search.xml", { headers: credentials })).text();
  return [
    ...atom.link.map((link) => link.href),
    ...(atom.entry ?? []).flatMap((entry) => entry.link.map((link) => link.href)),
    ...json.links.map((link) => link.href),
    ...json.navigation.map((link) => link.href),
    /template="([^"]+)"/.exec(description)![1]!,
  ];
}

forEachDatabase(
  "OPDS links with application.base_url",
  (server) => {
    beforeAll(async () => void (await adminSession(server())));

    test("every link starts with the configured public URL, path prefix included, whatever the request says", async () => {
      const links = await linksOf(server(), FORWARDED);
      expect(links.length).toBeGreaterThan(10);
      for (const link of links) expect(link).toStartWith("https://reader.example.net/longbox/opds/");
    });
  },
  { application: { base_url: "https://reader.example.net/longbox/" } },
);

forEachDatabase(
  "OPDS links behind a trusted reverse proxy",
  (server) => {
    beforeAll(async () => void (await adminSession(server())));

    test("X-Forwarded-Proto and -Host make the links", async () => {
      for (const link of await linksOf(server(), FORWARDED)) expect(link).toStartWith("https://books.example.org/opds/");
    });

    test("without forwarded headers, the request's own address makes them", async () => {
      for (const link of await linksOf(server(), {})) expect(link).toStartWith(`${server().url}/opds/`);
    });
  },
  { application: { trust_proxy: true } },
);

forEachDatabase("OPDS links without a trusted proxy", (server) => {
  beforeAll(async () => void (await adminSession(server())));

  test("forwarded headers are ignored: the links use the address the request reached", async () => {
    for (const link of await linksOf(server(), FORWARDED)) expect(link).toStartWith(`${server().url}/opds/`);
  });
});

forEachDatabase(
  "OPDS switched off",
  (server) => {
    beforeAll(async () => void (await adminSession(server())));

    test("with opds.enabled false the OPDS routes do not exist (404), the API still answers", async () => {
      const headers = basic("admin", PASSWORD);
      for (const path of ["/opds/v1.2/catalog", "/opds/v2/catalog", "/opds/v1.2/search.xml"]) {
        const response = await server().fetch(path, { headers });
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
      }
      expect((await server().fetch("/api/v1/libraries", { headers })).status).toBe(200);
    });
  },
  { opds: { enabled: false } },
);
