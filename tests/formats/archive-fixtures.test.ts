/**
 * Every fixture of the shared corpus under cbz/, cbr/, epub/ and unsupported/ goes through
 * the registry's analyze, and must give the result or the error listed here, in time.
 * pdf/ has its own table in pdf-fixtures.test.ts (owned by the PDF plugin).
 *
 * The table is exhaustive on purpose: a fixture added to the corpus without a line here
 * makes the completeness test fail instead of going untested.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import type { BookErrorType, BookMetadata, MetadataSource } from "../../src/formats/contract.ts";
import { type FailureReason, failureReason } from "../../src/formats/errors.ts";
import { filesUnder } from "../helpers/files.ts";
import { FIXTURES, fixture } from "../helpers/fixtures.ts";
import { registry } from "./registry-setup.ts";

interface Readable {
  format: string;
  pages: number;
  /** Pixel size of page 1 (null: unknown, e.g. fake or empty images). */
  firstPage?: readonly [number, number] | null;
  metadata?: { source: MetadataSource; values: Partial<BookMetadata> };
  /** Non-fatal errors expected next to the result (zero_pages, metadata). */
  errors?: BookErrorType[];
}
interface Unreadable {
  error: BookErrorType;
  reason: FailureReason;
}
type Expectation = Readable | Unreadable;

const zeroPages = (format: string, metadata?: Readable["metadata"]): Readable => ({ format, pages: 0, errors: ["zero_pages"], metadata });
const fails = (error: BookErrorType, reason: FailureReason): Unreadable => ({ error, reason });
const comicInfo = (values: Partial<BookMetadata>) => ({ source: "comicinfo" as const, values });
const opf = (values: Partial<BookMetadata>) => ({ source: "opf" as const, values });

const BTOOOM_ROOT = comicInfo({ series: "BTOOOM!", title: "Cool chatper name here 2", volume: 2, year: 2013 });
const CAPTAIN_SCIENCE = comicInfo({
  series: "Captain Science",
  title: "The Beginning; The End",
  number: "1",
  year: 1950,
  month: 11,
  day: 1,
  publisher: "Youthful Adventure Stories",
  language: "en",
  genres: ["Science Fiction"],
  authors: [
    { name: "Joe Orlando", role: "writer" },
    { name: "Wally Wood", role: "penciller" },
    { name: "Wally Wood", role: "inker" },
  ],
});
const MILES_MORALES = comicInfo({ series: "Miles Morales: Spider-Man", number: "4" });
const GOLDEN_HARPOON_AUTHORS = [
  { name: "Roger Starbuck", role: "author" },
  { name: "Junya Inoue", role: "author" },
];

/** Media folder -> the test file whose table covers it. */
const TABLE_OWNERS: Record<string, string> = {
  cbz: "archive-fixtures.test.ts",
  cbr: "archive-fixtures.test.ts",
  epub: "archive-fixtures.test.ts",
  unsupported: "archive-fixtures.test.ts",
  pdf: "pdf-fixtures.test.ts",
};
/** Folders of the corpus that hold no books. */
const NON_MEDIA_FOLDERS = new Set(["schemas", "samples"]);

const EXPECTED: Record<string, Expectation> = {
  // --- cbr/ ---
  "cbr/comicbox/Captain Science #001-cbi.cbr": { format: "cbr", pages: 5, firstPage: [114, 160], metadata: undefined },
  "cbr/comicbox/Captain Science #001-cix-cbi.cbr": { format: "cbr", pages: 5, firstPage: [114, 160], metadata: CAPTAIN_SCIENCE },
  "cbr/comictagger/fake_cbr.cbr": { format: "cbr", pages: 8, firstPage: null },
  "cbr/junrar/corrupt-header.rar": fails("parser", "corrupt"),
  "cbr/junrar/gh-88-empty.rar": zeroPages("cbr"),
  "cbr/junrar/loop.rar": fails("parser", "corrupt"),
  "cbr/junrar/m3-1gb-claim.rar": zeroPages("cbr"),
  "cbr/junrar/mainHeaderNull.rar": fails("format_detection", "unknown_format"),
  "cbr/junrar/multivolume-rar4/test-documents.part1.rar": fails("parser", "multi_volume"),
  "cbr/junrar/multivolume-rar4/test-documents.part2.rar": fails("parser", "multi_volume"),
  "cbr/junrar/multivolume-rar4/test-documents.part3.rar": fails("parser", "multi_volume"),
  "cbr/junrar/multivolume-rar5/stored.part1.rar": fails("parser", "multi_volume"),
  "cbr/junrar/multivolume-rar5/stored.part2.rar": fails("parser", "multi_volume"),
  "cbr/junrar/multivolume-rar5/stored.part3.rar": fails("parser", "multi_volume"),
  "cbr/junrar/parent-dir.rar": zeroPages("cbr"),
  "cbr/junrar/rar4-encrypted-junrar.rar": fails("parser", "encrypted"),
  "cbr/junrar/rar4-password-junrar.rar": zeroPages("cbr"),
  "cbr/junrar/rar4-solid.rar": zeroPages("cbr"),
  "cbr/junrar/rar4.rar": zeroPages("cbr"),
  "cbr/junrar/rar5-encrypted-junrar.rar": fails("parser", "encrypted"),
  "cbr/junrar/rar5-links-hostile.rar": zeroPages("cbr"),
  "cbr/junrar/rar5-password-junrar.rar": zeroPages("cbr"),
  "cbr/junrar/rar5-solid.rar": zeroPages("cbr"),
  "cbr/junrar/rar5.rar": zeroPages("cbr"),
  "cbr/junrar/rar7-md6g.rar": fails("parser", "unsupported"),
  "cbr/junrar/unicode.rar": zeroPages("cbr"),
  "cbr/kavita/ComicInfo_duplicateInfos.rar": zeroPages("cbr", BTOOOM_ROOT),
  "cbr/kavita/winrar.rar": zeroPages("cbr"),
  "cbr/komga/rar4-encrypted.rar": fails("parser", "encrypted"),
  "cbr/komga/rar4-solid.rar": { format: "cbr", pages: 3, firstPage: [48, 48] },
  "cbr/komga/rar4.rar": { format: "cbr", pages: 3, firstPage: [48, 48] },
  "cbr/komga/rar5-encrypted.rar": fails("parser", "encrypted"),
  "cbr/komga/rar5-solid.rar": { format: "cbr", pages: 3, firstPage: [48, 48] },
  "cbr/komga/rar5.rar": { format: "cbr", pages: 1, firstPage: [48, 48] },
  "cbr/node-unrar/FileEncByName.rar": zeroPages("cbr"),
  "cbr/node-unrar/FolderTest.rar": zeroPages("cbr"),
  "cbr/node-unrar/HeaderEnc1234.rar": fails("parser", "encrypted"),
  "cbr/node-unrar/WithComment.rar": zeroPages("cbr"),
  // .ico "pages" are not page images.
  "cbr/stump/book-complex-tree.rar": zeroPages("cbr", MILES_MORALES),

  // --- cbz/ ---
  "cbz/comicbox/Captain Science #001 (1950) The Beginning - nothing.cbz": zeroPages("cbz"),
  "cbz/comicbox/Captain Science #001-comet.cbz": { format: "cbz", pages: 5, firstPage: [114, 160] },
  "cbz/comicbox/Captain Science #001-metron.cbz": zeroPages("cbz"),
  "cbz/comicbox/Captain Science #001.cbz": { format: "cbz", pages: 5, firstPage: [114, 160], metadata: CAPTAIN_SCIENCE },
  "cbz/comicbox/macos_resource_fork.cbz": { format: "cbz", pages: 2, firstPage: [114, 160] },
  "cbz/kavita/ComicInfo file in folder.zip": {
    format: "cbz",
    pages: 1,
    firstPage: [1002, 1500],
    metadata: comicInfo({ series: "BTOOOM!", title: "v01" }),
  },
  "cbz/kavita/ComicInfo.zip": zeroPages("cbz", comicInfo({ series: "BTOOOM!", title: "v01" })),
  "cbz/kavita/ComicInfo2.zip": zeroPages(
    "cbz",
    comicInfo({ series: "Hellboy", title: "The Right Hand of Doom", volume: 4, year: 2000, publisher: "Dark Horse Comics" }),
  ),
  "cbz/kavita/ComicInfo_authors.zip": zeroPages("cbz", comicInfo({ ...BTOOOM_ROOT.values, authors: [{ name: "Junya Inoue", role: "writer" }] })),
  "cbz/kavita/ComicInfo_duplicateInfos.zip": zeroPages("cbz", BTOOOM_ROOT),
  "cbz/kavita/ComicInfo_duplicateInfos_reversed.zip": zeroPages("cbz", BTOOOM_ROOT),
  "cbz/kavita/ComicInfo_outside_root.zip": zeroPages("cbz", comicInfo({ series: "BTOOOM! - Duplicate" })),
  "cbz/kavita/Umlaut.zip": zeroPages("cbz", comicInfo({ series: "Belladonna", year: 2016, month: 5, day: 24 })),
  "cbz/kavita/empty.zip": zeroPages("cbz"),
  "cbz/kavita/file in folder in folder.zip": { format: "cbz", pages: 1, firstPage: [1002, 1500] },
  // The only page, test/file.png, is empty (0 bytes): no readable page (issue 30, M2); macOS junk does not count.
  "cbz/kavita/macos_one.zip": { format: "cbz", pages: 0, errors: ["page_extraction", "zero_pages"] },
  "cbz/kavita/macos_withdotunder_one.zip": { format: "cbz", pages: 0, errors: ["page_extraction", "zero_pages"] },
  "cbz/kavita/sorting.zip": { format: "cbz", pages: 2, firstPage: [1002, 1500] },
  "cbz/komga/zip-encrypted.zip": fails("parser", "encrypted"),
  "cbz/komga/zip.zip": { format: "cbz", pages: 1, firstPage: [48, 48] },
  "cbz/stump/book-complex-tree.zip": zeroPages("cbz", MILES_MORALES),
  // 1.avif 2.jpeg 4.png 5.webp are pages; 3.jxl is not a page format.
  // Its 3.jxl is a page too (JPEG XL, sized from its header).
  "cbz/stump/book-image-format-test.zip": { format: "cbz", pages: 5, firstPage: [550, 368], metadata: MILES_MORALES },
  "cbz/stump/nested-macos-compressed.cbz": { format: "cbz", pages: 3, firstPage: [480, 726] },
  "cbz/stump/science_comics_001.cbz": { format: "cbz", pages: 36, firstPage: [480, 726] },
  // Encrypted, but no entry is a page: nothing needs decrypting.
  "cbz/zip2/aes_archive.zip": zeroPages("cbz"),
  "cbz/zip2/chinese.zip": zeroPages("cbz"),
  "cbz/zip2/comment_garbage.zip": zeroPages("cbz"),
  "cbz/zip2/data_descriptor.zip": zeroPages("cbz"),
  "cbz/zip2/invalid_offset.zip": fails("parser", "corrupt"),
  "cbz/zip2/non_utf8.zip": zeroPages("cbz"),
  "cbz/zip2/zip64_demo.zip": zeroPages("cbz"),

  // --- epub/ (reflowable books: one page per spine document) ---
  "epub/idpf-built/childrens-literature.epub": {
    format: "epub",
    pages: 3,
    metadata: opf({ title: "Children's Literature", year: 2008, language: "en" }),
  },
  "epub/idpf-built/haruko-jpeg.epub": {
    format: "epub",
    pages: 13,
    firstPage: [600, 837],
    metadata: opf({ title: "ハルコさんの彼氏", readingDirection: "rtl", language: "ja-jp" }),
  },
  "epub/idpf-built/hefty-water.epub": { format: "epub", pages: 1, metadata: opf({ title: "Hefty Water" }) },
  "epub/idpf-built/kusamakura-japanese-vertical-writing.epub": {
    format: "epub",
    pages: 16,
    metadata: opf({ title: "草枕", readingDirection: "rtl" }),
  },
  "epub/idpf-built/kusamakura-japanese-vertical-writing.noefs.epub": {
    format: "epub",
    pages: 16,
    metadata: opf({ title: "草枕", readingDirection: "rtl" }),
  },
  "epub/idpf-built/regime-anticancer-arabic.epub": {
    format: "epub",
    pages: 3,
    metadata: opf({ title: "Le Vrai Régime anti-cancer", language: "ar", readingDirection: "rtl", publisher: "Hachette Antoine" }),
  },
  "epub/idpf-built/svg-in-spine.epub": { format: "epub", pages: 6, metadata: opf({ title: "SVG in Spine", publisher: "ePub Sample" }) },
  "epub/idpf-built/wasteland-woff-obf.epub": { format: "epub", pages: 1, metadata: opf({ title: "The Waste Land" }) },
  "epub/idpf-built/wasteland.epub": {
    format: "epub",
    pages: 1,
    metadata: opf({ title: "The Waste Land", authors: [{ name: "T.S. Eliot", role: "author" }] }),
  },
  "epub/kavita/The Golden Harpoon; Or, Lost Among the Floes A Story of the Whaling Grounds.epub": {
    format: "epub",
    pages: 16,
    metadata: opf({ authors: GOLDEN_HARPOON_AUTHORS, genres: ["Genre1", "Genre2"] }),
  },
  "epub/kavita/TitleWithVolume.epub": {
    format: "epub",
    pages: 16,
    metadata: opf({ title: "Accel World, Vol 1", series: "Accel World", number: "1", authors: GOLDEN_HARPOON_AUTHORS }),
  },
  "epub/kavita/TitleWithVolume_NoSeriesOrSeriesIndex.epub": { format: "epub", pages: 16, metadata: opf({ title: "Accel World, Vol 1" }) },
  "epub/komga/The Incomplete Theft - Ralph Burke.epub": {
    format: "epub",
    pages: 4,
    metadata: opf({ title: "The Incomplete Theft", authors: [{ name: "Ralph Burke", role: "author" }], year: 2021 }),
  },
  "epub/komga/epub3.epub": { format: "epub", pages: 2, metadata: opf({ title: "zip", language: "en" }) },
  "epub/komga/zip-as-epub.epub": fails("parser", "corrupt"),
  "epub/readium/SmokeTest-EPUB2.epub": {
    format: "epub",
    pages: 3,
    metadata: opf({ title: "SmokeTest - EPUB 2", authors: [{ name: "Ric Wright", role: "author" }] }),
  },
  "epub/readium/epub30-test-0201.epub": { format: "epub", pages: 7, metadata: opf({ title: "EPUBTEST 0201 - FXL Support Tests" }) },
  "epub/stump/book.epub": { format: "epub", pages: 15, metadata: opf({ title: "Alice's Adventures in Wonderland" }) },
  "epub/stump/leaves.epub": {
    format: "epub",
    pages: 383,
    metadata: opf({ title: "Leaves of Grass", authors: [{ name: "Walt Whitman", role: "author" }] }),
  },

  // --- unsupported/ (the shared corpus's name; cb7 and cbt are read by their plugins now) ---
  "unsupported/comicbox/Captain Science #001-cix.cbt": { format: "cbt", pages: 5, firstPage: [114, 160], metadata: CAPTAIN_SCIENCE },
  "unsupported/comicbox/Captain Science #001.cb7": { format: "cb7", pages: 5, firstPage: [114, 160], metadata: CAPTAIN_SCIENCE },
  "unsupported/kavita/ComicInfo_outside_root_SharpCompress.cb7": zeroPages("cb7", comicInfo({ series: "Fire Punch", title: "Fire Punch Kapitel 1" })),
  "unsupported/komga/7zip.7z": { format: "cb7", pages: 1, firstPage: [48, 48] },
};

/** No single fixture may take longer than this (the RAR 7 bomb included). */
const TIME_BOUND_MS = 3_000;

/** Every file of a fixture folder, by its path in the corpus. */
const listFiles = (folder: string) => filesUnder(fixture(folder)).map((file) => `${folder}/${file}`);

describe("the fixture table is complete", () => {
  test("every media folder of the corpus has an owning table", () => {
    const folders = readdirSync(FIXTURES, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !NON_MEDIA_FOLDERS.has(entry.name))
      .map((entry) => entry.name);
    expect(folders.filter((folder) => TABLE_OWNERS[folder] === undefined)).toEqual([]);
  });

  test("every file in the folders this table owns is listed, and every listed file exists", () => {
    const owned = Object.keys(TABLE_OWNERS).filter((folder) => TABLE_OWNERS[folder] === "archive-fixtures.test.ts");
    const onDisk = owned.flatMap(listFiles);
    expect(onDisk.filter((file) => !(file in EXPECTED))).toEqual([]);
    expect(Object.keys(EXPECTED).filter((file) => !onDisk.includes(file))).toEqual([]);
  });
});

describe("analyze every archive fixture", () => {
  for (const [file, expected] of Object.entries(EXPECTED)) {
    test(
      file,
      async () => {
        const started = performance.now();
        const analysis = await registry.analyze(fixture(file));
        expect(performance.now() - started).toBeLessThan(TIME_BOUND_MS);

        if ("error" in expected) {
          expect(analysis.result).toBeNull();
          expect(analysis.errors.map((error) => [error.type, failureReason(error)])).toEqual([[expected.error, expected.reason]]);
          expect(analysis.errors[0]?.message.length).toBeGreaterThan(10);
          return;
        }
        expect(analysis.errors.map((error) => error.type)).toEqual(expected.errors ?? []);
        expect(analysis.format).toBe(expected.format);
        const result = analysis.result;
        if (!result) throw new Error("expected an analysis result");
        expect(result.format).toBe(expected.format);
        expect(result.pages.length).toBe(expected.pages);
        expect(result.coverPage).toBe(expected.pages > 0 ? 1 : null);
        if (expected.firstPage !== undefined) {
          const first = result.pages[0];
          expect(first ? [first.width, first.height] : null).toEqual(expected.firstPage ? [...expected.firstPage] : [null, null]);
        }
        if (expected.metadata) {
          expect(result.metadata?.source).toBe(expected.metadata.source);
          expect(result.metadata?.values).toMatchObject(expected.metadata.values);
        } else if (expected.format !== "epub") {
          expect(result.metadata).toBeNull();
        }
      },
      TIME_BOUND_MS * 2,
    );
  }
});
