/**
 * XML documents from plain objects with fast-xml-parser's builder, which escapes `&`, `<`, `>`,
 * `"` and `'` in text and attributes. Escaping cannot help characters that XML 1.0 forbids
 * outright (most C0 controls, lone surrogates, U+FFFE/U+FFFF): one of them in a title from a
 * ComicInfo file would make the whole feed unreadable, so every string is cleaned first.
 *
 * Object shape: keys are element names, `@_name` keys are attributes, `#text` is the text of an
 * element that also has attributes, arrays repeat an element, undefined leaves it out.
 */
import { XMLBuilder } from "fast-xml-parser";

export type XmlNode = string | number | XmlElement | XmlNode[] | undefined;
export interface XmlElement {
  [nameOrAttribute: string]: XmlNode;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  suppressEmptyNode: true,
  format: false,
});

/** Characters outside XML 1.0's `Char` production (tab, newline and carriage return are allowed). */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** The text without characters that cannot appear in an XML 1.0 document. */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML_CHAR, "");
}

function cleaned(node: XmlNode): XmlNode {
  if (typeof node === "string") return xmlSafe(node);
  if (Array.isArray(node)) return node.map(cleaned);
  if (node === undefined || typeof node === "number") return node;
  const element: XmlElement = {};
  for (const [key, value] of Object.entries(node)) {
    if (value !== undefined) element[key] = cleaned(value);
  }
  return element;
}

/** A complete UTF-8 XML document with `root` as its document element. */
export function xmlDocument(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(cleaned(root))}`;
}
