/** The XML writer of the OPDS feeds: escaping and characters XML 1.0 cannot carry. */
import { describe, expect, test } from "bun:test";
import { XMLParser } from "fast-xml-parser";
import { xmlDocument, xmlSafe } from "../../src/http/opds/xml";

const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", parseTagValue: false }).parse(xml);

describe("xmlDocument", () => {
  test("text and attributes with &, <, >, quotes and non-Latin scripts survive a round trip, escaped", () => {
    const tricky = `Tom & Jerry <"Special"> 'it's' 東京 العربية &amp;`;
    const xml = xmlDocument({ feed: { title: tricky, link: { "@_href": `https://h/x?a=1&b=${tricky}`, "@_title": tricky } } });
    expect(xml).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<feed>');
    expect(xml).toContain("Tom &amp; Jerry &lt;&quot;Special&quot;&gt;");
    expect(xml).toContain("&amp;amp;");
    const { feed } = parse(xml);
    expect(feed.title).toBe(tricky);
    expect(feed.link).toEqual({ href: `https://h/x?a=1&b=${tricky}`, title: tricky });
  });

  test("control characters, lone surrogates and U+FFFE/U+FFFF are removed; tab, newline and astral characters stay", () => {
    const dirty = `a\u0000b\u0001c\u001fd\u0008e\uD800f\uFFFEg\uFFFFh\ti\nj\rk 😀`;
    expect(xmlSafe(dirty)).toBe("abcdefgh\ti\nj\rk 😀");
    const xml = xmlDocument({ feed: { title: dirty, link: { "@_title": dirty } } });
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\uD800\uFFFE\uFFFF]/);
    expect(parse(xml).feed.link.title).toContain("😀");
  });

  test("undefined values leave their element out; arrays repeat it; numbers are written as text", () => {
    const xml = xmlDocument({ feed: { a: undefined, b: [{ "@_n": 1 }, { "@_n": 2 }], c: 3 } });
    expect(xml).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<feed><b n="1"/><b n="2"/><c>3</c></feed>');
  });
});
