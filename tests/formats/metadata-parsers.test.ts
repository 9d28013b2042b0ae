/** ComicInfo.xml and OPF parsing on inline documents covering what the fixtures do not. */
import { describe, expect, test } from "bun:test";
import { parseComicInfo } from "../../src/formats/comicinfo.ts";
import { parseXml } from "../../src/formats/xml.ts";
import { readPackage } from "../../plugins/epub/opf.ts";

const encode = (text: string) => new TextEncoder().encode(text);

describe("parseComicInfo", () => {
  test("elements in any order and case; creators split by comma with roles; manga direction; identifiers", () => {
    const { metadata, frontCoverImageIndex } = parseComicInfo(
      encode(`<?xml version="1.0" encoding="utf-8"?>
      <ComicInfo>
        <manga>YesAndRightToLeft</manga>
        <Number>12.5</Number>
        <Writer>Tsugumi Ohba, Someone Else</Writer>
        <Penciller>Takeshi Obata</Penciller>
        <CoverArtist>Takeshi Obata</CoverArtist>
        <Translator>Pookie Rolf</Translator>
        <Series>Death Note</Series>
        <Volume>-1</Volume>
        <Year>2004</Year><Month>13</Month>
        <Genre>Mystery, Thriller, Mystery</Genre>
        <Tags>shinigami</Tags>
        <LanguageISO>ja</LanguageISO>
        <GTIN>9781421501680</GTIN>
        <PageCount>200</PageCount>
        <Pages><Page Image="0"/><Page Image="1" Type="FrontCover"/></Pages>
      </ComicInfo>`),
    );
    expect(metadata).toEqual({
      series: "Death Note",
      number: "12.5",
      year: 2004,
      authors: [
        { name: "Tsugumi Ohba", role: "writer" },
        { name: "Someone Else", role: "writer" },
        { name: "Takeshi Obata", role: "penciller" },
        { name: "Takeshi Obata", role: "cover" },
        { name: "Pookie Rolf", role: "translator" },
      ],
      language: "ja",
      genres: ["Mystery", "Thriller"],
      tags: ["shinigami"],
      identifiers: { gtin: "9781421501680" },
      readingDirection: "rtl",
      declaredPageCount: 200,
    });
    expect(frontCoverImageIndex).toBe(1);
  });

  test("a document that is not ComicInfo is a metadata error", () => {
    expect(() => parseComicInfo(encode("<MetronInfo><Series/></MetronInfo>"))).toThrow("not a ComicInfo document");
  });
});

describe("readPackage (OPF)", () => {
  const opf = (metadata: string, extra = "") =>
    readPackage(
      parseXml(
        `<package xmlns="http://www.idpf.org/2007/opf" version="3.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
          <metadata>${metadata}</metadata>
          <manifest>
            <item id="c1" href="Text/ch%201.xhtml" media-type="application/xhtml+xml"/>
            <item id="img" href="../Images/front.jpg" media-type="image/jpeg"/>
          </manifest>
          <spine><itemref idref="c1"/><itemref idref="missing"/></spine>
          ${extra}
        </package>`,
        "OEBPS/content.opf",
      ),
      "OEBPS/content.opf",
    );

  test("EPUB 3 series collection with group position, refined roles, ISBN identifier", () => {
    const pkg = opf(`
      <dc:title id="t">Vol 3</dc:title>
      <dc:creator id="a">Ann Author</dc:creator><meta refines="#a" property="role" scheme="marc:relators">ill</meta>
      <dc:identifier id="isbn">urn:isbn:9780000000002</dc:identifier>
      <dc:identifier id="other">abc-123</dc:identifier>
      <meta refines="#other" property="identifier-type" scheme="onix:codelist5">01</meta>
      <meta property="belongs-to-collection" id="set">The Set</meta>
      <meta refines="#set" property="collection-type">set</meta>
      <meta property="belongs-to-collection" id="series">The Series</meta>
      <meta refines="#series" property="collection-type">series</meta>
      <meta refines="#series" property="group-position">2.5</meta>
      <meta name="calibre:series" content="Calibre Series"/>
      <dc:date>2019-07</dc:date>`);
    expect(pkg.metadata).toEqual({
      title: "Vol 3",
      series: "The Series",
      number: "2.5",
      year: 2019,
      month: 7,
      authors: [{ name: "Ann Author", role: "illustrator" }],
      identifiers: { isbn: "9780000000002", identifier: "abc-123" },
    });
    expect(pkg.spine.map((item) => item.path)).toEqual(["OEBPS/Text/ch 1.xhtml"]);
    expect(pkg.fixedLayout).toBe(false);
  });

  test("calibre series with a non-numeric index, opf:role, guide cover, pre-paginated layout", () => {
    const pkg = opf(
      `<dc:title>T</dc:title>
       <dc:creator opf:role="trl">Tran Slator</dc:creator>
       <dc:contributor opf:role="bkp">calibre (7.0)</dc:contributor>
       <meta name="calibre:series" content="Calibre Series"/>
       <meta name="calibre:series_index" content="1-3"/>
       <meta property="rendition:layout">pre-paginated</meta>`,
      `<guide><reference type="cover" href="../Images/front.jpg"/></guide>`,
    );
    expect(pkg.metadata).toMatchObject({ series: "Calibre Series", seriesGroup: "1-3", authors: [{ name: "Tran Slator", role: "translator" }] });
    expect(pkg.cover).toBe("Images/front.jpg");
    expect(pkg.fixedLayout).toBe(true);
  });

  test("hrefs cannot climb out of the book", () => {
    const pkg = readPackage(
      parseXml(
        `<package><metadata/><manifest><item id="x" href="../../etc/passwd" media-type="text/plain"/></manifest><spine><itemref idref="x"/></spine></package>`,
        "content.opf",
      ),
      "content.opf",
    );
    expect(pkg.spine).toEqual([]);
  });
});
