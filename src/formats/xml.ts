/**
 * The one place XML from books is parsed (ComicInfo.xml, container.xml, OPF, XHTML pages).
 *
 * Book files are untrusted, so:
 * - a DOCTYPE that declares entities (`<!ENTITY`) is refused outright: that is how XXE and
 *   "billion laughs" payloads start, and no legitimate book metadata needs it;
 * - fast-xml-parser's own entity processing is switched off, and only the five predefined
 *   XML entities and numeric character references are decoded here; anything else (`&nbsp;`,
 *   `&custom;`) stays as literal text. No DTD is ever fetched or interpreted.
 *
 * The result is a small uniform element tree with namespace prefixes removed; lookups by name
 * ignore case, because real-world ComicInfo files are not consistent about it.
 */
import { XMLParser } from "fast-xml-parser";
import { failure } from "./errors.ts";

export interface XmlElement {
  /** Local name, namespace prefix removed (`dc:title` -> `title`). */
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** Concatenated text directly inside this element (not its descendants), trimmed. */
  readonly text: string;
}

const ATTRIBUTES_KEY = ":@";
const TEXT_KEY = "#text";
const ATTRIBUTE_PREFIX = "@_";

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/**
 * Whether the document declares entities in a DOCTYPE. Two linear searches: a lazy regular
 * expression from every "<!DOCTYPE" to the next "<!ENTITY" is quadratic on crafted input.
 */
function declaresEntities(text: string): boolean {
  const doctype = text.search(/<!DOCTYPE/i);
  return doctype >= 0 && /<!ENTITY/i.test(text.slice(doctype));
}

/** Parses an XML document; `documentName` names it in error messages. */
export function parseXml(text: string, documentName: string): XmlElement {
  if (declaresEntities(text)) {
    throw failure(
      "parser",
      "unsupported",
      `${documentName} declares XML entities in a DOCTYPE; such documents are refused (XXE and entity-expansion attacks)`,
      { document: documentName },
    );
  }
  let nodes: unknown;
  try {
    nodes = parser.parse(stripByteOrderMark(text));
  } catch (error) {
    throw failure("parser", "corrupt", `${documentName} is not well-formed XML: ${error instanceof Error ? error.message : String(error)}`, {
      document: documentName,
    });
  }
  const root = toElements(nodes).find(() => true);
  if (!root) throw failure("parser", "corrupt", `${documentName} has no root element`, { document: documentName });
  return root;
}

/** Decodes XML bytes: UTF-8 unless a UTF-16 byte order mark says otherwise. */
export function decodeXmlBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes);
  return new TextDecoder("utf-8").decode(bytes);
}

export function childElements(element: XmlElement, name: string): XmlElement[] {
  const wanted = name.toLowerCase();
  return element.children.filter((child) => child.name.toLowerCase() === wanted);
}

export function childElement(element: XmlElement, name: string): XmlElement | undefined {
  return childElements(element, name)[0];
}

/** All descendants (depth first, document order) with this name. */
export function descendantElements(element: XmlElement, name: string): XmlElement[] {
  const wanted = name.toLowerCase();
  const found: XmlElement[] = [];
  const visit = (node: XmlElement): void => {
    for (const child of node.children) {
      if (child.name.toLowerCase() === wanted) found.push(child);
      visit(child);
    }
  };
  visit(element);
  return found;
}

/** An attribute by local name, ignoring case and namespace prefix. */
export function attribute(element: XmlElement, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(element.attributes)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}

const PREDEFINED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Decodes the five predefined entities and numeric references; leaves every other `&name;` as is. */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (whole, reference: string) => {
    if (reference[0] !== "#") return PREDEFINED_ENTITIES[reference.toLowerCase()] ?? whole;
    const isHex = reference[1] === "x" || reference[1] === "X";
    const codePoint = Number.parseInt(reference.slice(isHex ? 2 : 1), isHex ? 16 : 10);
    const valid = codePoint > 0 && codePoint <= 0x10ffff && !(codePoint >= 0xd800 && codePoint <= 0xdfff);
    return valid ? String.fromCodePoint(codePoint) : whole;
  });
}

function stripByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Converts fast-xml-parser's preserveOrder output (`[{tag: [...children], ":@": {...}}]`) into XmlElements. */
function toElements(nodes: unknown): XmlElement[] {
  if (!Array.isArray(nodes)) return [];
  const elements: XmlElement[] = [];
  for (const node of nodes) {
    if (typeof node !== "object" || node === null) continue;
    const record = node as Record<string, unknown>;
    const name = Object.keys(record).find((key) => key !== ATTRIBUTES_KEY && key !== TEXT_KEY);
    if (name === undefined) continue;
    const content = record[name];
    const texts = Array.isArray(content)
      ? content.flatMap((child: unknown) => {
          const text = typeof child === "object" && child !== null ? (child as Record<string, unknown>)[TEXT_KEY] : undefined;
          return text === undefined ? [] : [String(text)];
        })
      : [];
    elements.push({
      name,
      attributes: toAttributes(record[ATTRIBUTES_KEY]),
      children: toElements(content),
      text: decodeXmlEntities(texts.join(" ")).trim(),
    });
  }
  return elements;
}

function toAttributes(raw: unknown): Record<string, string> {
  const attributes: Record<string, string> = {};
  if (typeof raw !== "object" || raw === null) return attributes;
  for (const [key, value] of Object.entries(raw)) {
    const name = key.startsWith(ATTRIBUTE_PREFIX) ? key.slice(ATTRIBUTE_PREFIX.length) : key;
    attributes[name] = decodeXmlEntities(String(value));
  }
  return attributes;
}
