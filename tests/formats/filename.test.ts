import { describe, expect, test } from "bun:test";
import type { BookMetadata } from "../../src/formats/contract.ts";
import { parseFileName, parseFolderName } from "../../src/library/metadata/filename.ts";

const FILE_NAMES: ReadonlyArray<readonly [string, BookMetadata]> = [
  // The specification's four shapes.
  ["Naruto v01.cbz", { series: "Naruto", volume: 1 }],
  ["Batman #012.cbz", { series: "Batman", number: "12" }],
  ["Batman-012.cbz", { series: "Batman", number: "12" }],
  ["Saga (2012) 001.cbz", { series: "Saga", year: 2012, number: "1" }],
  // Fixture names.
  ["Captain Science #001 (1950) The Beginning - nothing.cbz", { series: "Captain Science", number: "1", year: 1950, title: "The Beginning - nothing" }],
  ["Captain Science #001-cix-cbi.cbr", { series: "Captain Science", number: "1", title: "cix-cbi" }],
  ["Captain Science #001.cb7", { series: "Captain Science", number: "1" }],
  ["science_comics_001.cbz", { series: "science comics", number: "1" }],
  ["The Incomplete Theft - Ralph Burke.epub", { title: "The Incomplete Theft - Ralph Burke" }],
  ["TitleWithVolume.epub", { title: "TitleWithVolume" }],
  // Volume variants.
  ["One Piece Vol. 3.cbz", { series: "One Piece", volume: 3 }],
  ["One Piece Volume 100.cbz", { series: "One Piece", volume: 100 }],
  ["One Piece vol.07.cbz", { series: "One Piece", volume: 7 }],
  ["Berserk_v02_[Digital].cbz", { series: "Berserk", volume: 2 }],
  // Chapter variants, decimals, zero padding.
  ["Chainsaw Man c012.cbz", { series: "Chainsaw Man", number: "12" }],
  ["Chainsaw Man Ch. 12.5.cbz", { series: "Chainsaw Man", number: "12.5" }],
  ["Chainsaw Man Chapter 097.cbz", { series: "Chainsaw Man", number: "97" }],
  ["Vinland Saga v03 c020.cbz", { series: "Vinland Saga", volume: 3, number: "20" }],
  ["Vinland Saga - Vol.01 Ch.001.cbz", { series: "Vinland Saga", volume: 1, number: "1" }],
  ["Batman #12.5.cbz", { series: "Batman", number: "12.5" }],
  ["Batman 000.cbz", { series: "Batman", number: "0" }],
  // Release tags.
  ["Invincible 001 (2003) (Digital) (Zone-Empire).cbr", { series: "Invincible", number: "1", year: 2003 }],
  ["[Group] Blame! v01 (c2c).cbz", { series: "Blame!", volume: 1 }],
  ["Saga_(2012)_054_(Digital)_(Empire).cbz", { series: "Saga", year: 2012, number: "54" }],
  ["Paper Girls 030 (of 30) (2019).cbz", { series: "Paper Girls", number: "30", year: 2019 }],
  // Numbers inside series names.
  ["Spider-Man 2099 001.cbz", { series: "Spider-Man 2099", number: "1" }],
  ["100 Bullets 012.cbz", { series: "100 Bullets", number: "12" }],
  ["X-Men 007 - Second Genesis.cbz", { series: "X-Men", number: "7", title: "Second Genesis" }],
  ["Hellboy v4 - The Right Hand of Doom.cbz", { series: "Hellboy", volume: 4, title: "The Right Hand of Doom" }],
  // No number at all: the name is the title; a path is reduced to the file name.
  ["/library/comics/Watchmen.cbz", { title: "Watchmen" }],
  ["Watchmen (1987).cbz", { series: "Watchmen", year: 1987 }],
];

describe("parseFileName", () => {
  for (const [name, expected] of FILE_NAMES) {
    test(name, () => {
      expect(parseFileName(name)).toEqual(expected);
    });
  }
});

describe("parseFolderName", () => {
  const FOLDERS: ReadonlyArray<readonly [string, BookMetadata]> = [
    ["Saga (2012) [Digital]", { series: "Saga", year: 2012 }],
    ["Captain Science 001", { series: "Captain Science 001" }],
    ["one_punch_man", { series: "one punch man" }],
  ];
  for (const [name, expected] of FOLDERS) {
    test(name, () => {
      expect(parseFolderName(name)).toEqual(expected);
    });
  }
});

test("a name without extension keeps its decimal number", () => {
  expect(parseFileName("Chainsaw Man Ch. 12.5")).toEqual({ series: "Chainsaw Man", number: "12.5" });
});
