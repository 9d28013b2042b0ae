import { describe, expect, test } from "bun:test";
import { type MetadataInput, mergeMetadata, parseBookNumber } from "../../src/library/metadata/merge.ts";

describe("mergeMetadata", () => {
  test("per field, the highest-priority source that states a value wins, whatever the input order", () => {
    const inputs: MetadataInput[] = [
      { source: "folder", values: { series: "Folder Series", year: 1999 } },
      { source: "filename", values: { series: "File Series", number: "7", title: "From the file name" } },
      { source: "opf", values: { title: "OPF title", language: "en", authors: [{ name: "A. Writer", role: "author" }] } },
      { source: "comicinfo", values: { series: "ComicInfo Series", title: "   ", genres: [], authors: [] } },
    ];
    const merged = mergeMetadata(inputs);
    expect(merged.values).toEqual({
      series: "ComicInfo Series",
      title: "OPF title",
      language: "en",
      authors: [{ name: "A. Writer", role: "author" }],
      number: "7",
      year: 1999,
    });
    expect(merged.sources).toEqual({
      series: "comicinfo",
      title: "opf",
      language: "opf",
      authors: "opf",
      number: "filename",
      year: "folder",
    });
    expect(merged.number).toBe(7);
    expect(merged.numberSort).toBe(7);
  });

  test("PDF properties rank between the OPF and the file name", () => {
    const merged = mergeMetadata([
      { source: "filename", values: { title: "file" } },
      { source: "pdf", values: { title: "pdf" } },
    ]);
    expect(merged.values.title).toBe("pdf");
    expect(merged.sources.title).toBe("pdf");
  });

  test("no input gives empty metadata and no number", () => {
    expect(mergeMetadata([])).toEqual({ values: {}, sources: {}, number: null, numberSort: null });
  });
});

describe("parseBookNumber", () => {
  const CASES: ReadonlyArray<readonly [string | undefined, number | null, number | null]> = [
    ["12", 12, 12],
    ["001", 1, 1],
    ["12.5", null, 12.5],
    ["12.0", 12, 12],
    ["-1", -1, -1],
    ["7a", null, 7],
    ["Annual", null, null],
    ["", null, null],
    [undefined, null, null],
    ["99999999999", null, 99999999999],
  ];
  for (const [raw, number, numberSort] of CASES) {
    test(`${JSON.stringify(raw)} -> number ${number}, numberSort ${numberSort}`, () => {
      expect(parseBookNumber(raw)).toEqual({ number, numberSort });
    });
  }
});
