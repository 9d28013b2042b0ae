/**
 * Metadata from a book's file name and its folder's name, the two lowest-priority sources.
 *
 * Recognised (spec): "<Series> v<NN>", "<Series> #<NNN>", "<Series>-<NNN>", "<Series> (<YYYY>) <NNN>";
 * and the usual real-world variants: Vol./Volume, Ch./Chapter/c, zero padding, decimals
 * ("12.5"), release tags in [] / {} / () stripped ("[Group]", "(Digital)", "(c2c)"),
 * underscores for spaces, a title after the number ("... #001 The Beginning", "... 003 - Title").
 */
import type { BookMetadata } from "../../formats/contract.ts";

/** A four-digit year in parentheses, as in "Saga (2012) 001". */
const YEAR_TAG = /\((\d{4})\)/;
const BRACKET_TAGS = /\[[^\]]*\]|\{[^}]*\}/g;
const PAREN_TAGS = /\([^)]*\)/g;
/** Where a year tag stood: series names end there. */
const CUT = "\u0000";

const VOLUME = /\b(?:vol(?:ume)?\.?\s*|v\.?\s?)(\d{1,4})(?:\.\d+)?(?![\w.])/i;
const CHAPTER = /\b(?:ch(?:apter|ap)?\.?\s*|c)(\d{1,4}(?:\.\d+)?)(?![\w.])/i;
const HASH_NUMBER = /#\s*(\d{1,5}(?:\.\d+)?)(?![\w.])/;
/** A number standing alone, after a space, a hyphen or a year tag. */
const BARE_NUMBER = /(?<=[\s\-\u0000])(\d{1,5}(?:\.\d+)?)(?![\w.])/g;
const SEPARATORS = /^[\s\-–—:.,_\u0000]+|[\s\-–—:.,_\u0000]+$/g;
/** Any extension that starts with a letter ("12.5" has none). */
const EXTENSION = /\.[a-z][a-z0-9]{1,4}$/i;

interface Token {
  start: number;
  end: number;
}

export function parseFileName(fileName: string): BookMetadata {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1).replace(EXTENSION, "");
  let text = ` ${base.replaceAll("_", " ")} `;
  const yearMatch = YEAR_TAG.exec(text);
  const year = yearMatch?.[1] ? plausibleYear(Number(yearMatch[1])) : undefined;
  if (yearMatch && year !== undefined) text = text.replace(yearMatch[0], ` ${CUT} `);
  text = text.replace(BRACKET_TAGS, " ").replace(PAREN_TAGS, " ").replace(/\s+/g, " ");

  const tokens: Token[] = [];
  const take = (match: RegExpExecArray | null | undefined): string | undefined => {
    if (!match?.[1]) return undefined;
    tokens.push({ start: match.index, end: match.index + match[0].length });
    return match[1];
  };
  const volume = take(VOLUME.exec(text));
  const number = take(CHAPTER.exec(text)) ?? take(HASH_NUMBER.exec(text)) ?? take(bareNumber(text, tokens));
  const yearCut = text.indexOf(CUT);
  if (yearCut >= 0) tokens.push({ start: yearCut, end: yearCut + 1 });

  const metadata: BookMetadata = {};
  if (tokens.length === 0) {
    const title = clean(text);
    return title ? { title } : {};
  }
  const seriesEnd = Math.min(...tokens.map((token) => token.start));
  const titleStart = Math.max(...tokens.map((token) => token.end));
  const series = clean(text.slice(0, seriesEnd));
  const title = clean(text.slice(titleStart));
  if (series) metadata.series = series;
  if (volume !== undefined) metadata.volume = Number.parseInt(volume, 10);
  if (number !== undefined) metadata.number = withoutLeadingZeros(number);
  if (year !== undefined) metadata.year = year;
  if (title) metadata.title = title;
  return metadata;
}

/** A folder named "Saga (2012) [Digital]" names the series "Saga" (and its year). */
export function parseFolderName(folderName: string): BookMetadata {
  let text = folderName.replaceAll("_", " ");
  const yearMatch = YEAR_TAG.exec(text);
  const year = yearMatch?.[1] ? plausibleYear(Number(yearMatch[1])) : undefined;
  text = text.replace(BRACKET_TAGS, " ").replace(PAREN_TAGS, " ");
  const series = clean(text);
  return { ...(series ? { series } : {}), ...(year !== undefined ? { year } : {}) };
}

/**
 * The bare number that is the issue number: the one right before a " - title" separator or a
 * year tag when there is one, else the last one ("Spider-Man 2099 001" is issue 001). A number
 * at the very start is part of the name ("100 Bullets 012"), and nothing inside another token counts.
 */
function bareNumber(text: string, taken: readonly Token[]): RegExpExecArray | undefined {
  const candidates = [...text.matchAll(BARE_NUMBER)].filter(
    (match) => clean(text.slice(0, match.index)) !== "" && !taken.some((token) => match.index >= token.start && match.index < token.end),
  );
  const beforeSeparator = candidates.find((match) => /^\s*(?:[-–—]\s|\u0000)/.test(text.slice(match.index + match[0].length)));
  return (beforeSeparator ?? candidates.at(-1)) as RegExpExecArray | undefined;
}

function plausibleYear(year: number): number | undefined {
  return year >= 1800 && year <= 2100 ? year : undefined;
}

function withoutLeadingZeros(number: string): string {
  return number.replace(/^0+(?=\d)/, "");
}

function clean(text: string): string {
  return text.replaceAll(CUT, " ").replace(/\s+/g, " ").replace(SEPARATORS, "").trim();
}
