/**
 * Validators and readers for OPDS documents in tests.
 *
 * - OPDS 1.2 (Atom): Debian's jing against the official OPDS 1.2 RELAX NG grammar, copied into a
 *   temp folder with its one broken line corrected (SOURCES.md: the `atomUri` pattern rejects
 *   every URI holding n, r or t; the copy uses plain xsd:anyURI, which also admits the `{}` of
 *   PSE templates). The shared fixtures are never edited. OPDS-PSE links are also checked
 *   against the PSE grammar, and the OpenSearch description against its grammar.
 * - OPDS 2: ajv against the OPDS 2 JSON schemas, loaded with every readium schema they $ref.
 * - Reading: fast-xml-parser turns a feed into plain objects to follow its links.
 */
import { expect } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import { XMLParser } from "fast-xml-parser";
import { fixture } from "../helpers/fixtures";

const OPDS_V1_SCHEMAS = fixture("schemas/opds/v1");
const BROKEN_ATOM_URI = /^\s*atomUri = xsd:anyURI - xsd:string \{pattern = .*\}\s*$/m;

/** A temp folder with the corrected OPDS 1.2 grammar, atom.rnc beside it, the PSE and OpenSearch grammars. */
export function correctedSchemas(): { dir: string; opds: string; pse: string; openSearch: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "longbox-opds-schemas-"));
  const official = readFileSync(join(OPDS_V1_SCHEMAS, "opds-1.2.rnc"), "utf8");
  if (!BROKEN_ATOM_URI.test(official)) throw new Error("opds-1.2.rnc no longer has the broken atomUri line: revisit the correction");
  writeFileSync(join(dir, "opds-1.2.rnc"), official.replace(BROKEN_ATOM_URI, "  atomUri = xsd:anyURI"));
  writeFileSync(join(dir, "atom.rnc"), readFileSync(join(OPDS_V1_SCHEMAS, "atom.rnc")));
  writeFileSync(join(dir, "opds-pse-1.2.rnc"), readFileSync(join(OPDS_V1_SCHEMAS, "opds-pse-1.2.rnc")));
  writeFileSync(join(dir, "osd-1.1.rnc"), readFileSync(fixture("schemas/opensearch/osd-1.1-draft5.rnc")));
  return {
    dir,
    opds: join(dir, "opds-1.2.rnc"),
    pse: join(dir, "opds-pse-1.2.rnc"),
    openSearch: join(dir, "osd-1.1.rnc"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Validates documents against a compact grammar with one jing run (one JVM start for many
 * documents); fails the test with jing's messages, which name the document and line.
 */
export function expectValidWithJing(schema: string, documents: Record<string, string>, dir: string): void {
  const files = Object.entries(documents).map(([name, text]) => {
    const file = join(dir, `${name.replace(/[^A-Za-z0-9_-]+/g, "_")}.xml`);
    writeFileSync(file, text);
    return file;
  });
  const jing = Bun.spawnSync(["jing", "-c", schema, ...files], { stdout: "pipe", stderr: "pipe" });
  const messages = jing.stdout.toString().trim();
  expect({ exitCode: jing.exitCode, messages }).toEqual({ exitCode: 0, messages: "" });
}

/** The raw PSE links of a feed, each as a stand-alone document for the PSE grammar. */
export function pageStreamLinks(feedXml: string): string[] {
  return [...feedXml.matchAll(/<link [^>]*rel="http:\/\/vaemendis\.net\/opds-pse\/stream"[^>]*\/>/g)].map(
    ([link]) =>
      `<?xml version="1.0" encoding="UTF-8"?>\n${link.replace(
        "<link ",
        '<link xmlns="http://www.w3.org/2005/Atom" xmlns:pse="http://vaemendis.net/opds-pse/ns" ',
      )}`,
  );
}

/** An ajv validator for OPDS 2 feeds (the stable specs schemas and the drafts), with formats. */
export function opds2Validator(): { validate(feed: unknown): void } {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const schemas = fixture("schemas/opds/v2");
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]));
  for (const file of walk(schemas).filter((name) => name.endsWith(".schema.json"))) {
    ajv.addSchema(JSON.parse(readFileSync(file, "utf8")));
  }
  const feedSchemas = ["https://specs.opds.io/schema/feed.schema.json", "https://drafts.opds.io/schema/feed.schema.json"];
  return {
    validate(feed) {
      for (const id of feedSchemas) {
        const check = ajv.getSchema(id);
        if (!check) throw new Error(`schema ${id} not loaded`);
        const valid = check(feed);
        expect({ schema: id, errors: valid ? [] : check.errors }).toEqual({ schema: id, errors: [] });
      }
    },
  };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  textNodeName: "text",
  parseTagValue: false,
  isArray: (name) => name === "entry" || name === "link" || name === "author" || name === "category" || name === "contributor",
});

export interface AtomLink {
  rel?: string;
  href: string;
  type?: string;
  length?: string;
  "pse:count"?: string;
  "pse:lastRead"?: string;
  "pse:lastReadDate"?: string;
}

export interface AtomEntry {
  id: string;
  title: string;
  link: AtomLink[];
  [element: string]: unknown;
}

export interface AtomFeed {
  id: string;
  title: string;
  link: AtomLink[];
  entry?: AtomEntry[];
  [element: string]: unknown;
}

export function parseFeed(xml: string): AtomFeed {
  return parser.parse(xml).feed as AtomFeed;
}

export function linkOf(owner: { link: AtomLink[] }, rel: string): AtomLink | undefined {
  return owner.link.find((link) => link.rel === rel);
}

export const NAVIGATION_TYPE = "application/atom+xml;profile=opds-catalog;kind=navigation";
export const ACQUISITION_TYPE = "application/atom+xml;profile=opds-catalog;kind=acquisition";
