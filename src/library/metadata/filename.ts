/**
 * Metadata from a book's file name and its folder's name, the two lowest-priority sources.
 *
 * Recognised (spec): "<Series> v<NN>", "<Series> #<NNN>", "<Series>-<NNN>", "<Series> (<YYYY>) <NNN>";
 * and the real-world variants of the names in Kavita's, comictagger's and comicfn2dict's test
 * suites (tests/formats/filename.test.ts keeps our table of them):
 * - volumes: v/Vol./Volume/Tome, "Vol-1", decimals ("v03.5"), also inside brackets ("(v01)",
 *   "[Volume 11]") and after underscores ("_vol01_");
 * - chapters: c/Ch./Chp./Chapter(s)/Episode/Ep./"issue #", "Chapter11v2", ranges ("c001-008"
 *   is chapter 1), inside brackets ("(Ch.071-079)", "(#02)");
 * - years: "(2012)", and dates written out: "(January 2022)", "(Dec, 2004)", "Sep-Oct 1951",
 *   "(1966-02)", "[1984-04-28]", "2001-02-24", "02-24-2001", "(09-10 1943)";
 * - release tags in [] and () stripped; an edition in braces inside the series name kept
 *   ("Dance in the Vampire Bund {Special Edition} v03.5"), braces after it dropped;
 * - underscores for spaces, zero padding, decimals ("12.5"), a title after the number
 *   ("... #001 The Beginning", "... 003 - Title").
 */
import type { BookMetadata } from "../../formats/contract.ts";

/** A four-digit year in parentheses, as in "Saga (2012) 001". */
const YEAR_TAG = /\((\d{4})\)/;
const MONTH = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
/** Dates whose year is the book's (when no "(YYYY)" says it), each standing where series names end. */
const DATES: readonly RegExp[] = [
  // "(January 2022)", "(December, 2004)", "(Sep-Oct 1951)", "(09-10 1943)"
  new RegExp(String.raw`[(\[]\s*(?:${MONTH}|\d{1,2})(?:\s*[-/]\s*(?:${MONTH}|\d{1,2}))?,?\s+(\d{4})\s*[)\]]`, "i"),
  // "(1966-02)", "[1984-04-28]", "2021-08-04"
  /[(\[]?\b(\d{4})-\d{2}(?:-\d{2})?\b[)\]]?/,
  // "Sep-Oct 1951", "March 2016"
  new RegExp(String.raw`\b${MONTH}(?:-${MONTH})?,?\s+(\d{4})\b`, "i"),
  // "02-24-2001"
  /\b\d{1,2}-\d{1,2}-(\d{4})\b/,
];
const BRACKET_GROUP = /\[([^\]]*)\]|\(([^)]*)\)/g;
const BRACES = /\{[^}]*\}/g;
/** Where a year or date stood: series names end there. */
const CUT = "\u0000";

const NUMBER = String.raw`(\d{1,5}(?:\.\d+)?)`;
/** After a chapter number: nothing word-like, or a release version ("Chapter11v2"). */
const CHAPTER_END = String.raw`(?=$|[^\w.]|v\d)`;
/** Volumes: v/Vol./Volume, French "Tome"/"T3", a season "S01" (Kavita reads the last two as volumes). */
const VOLUME = new RegExp(String.raw`\b(?:vol(?:ume)?\.?[\s-]*|tome\s*|v\.?\s?|[ts](?=\d))(\d{1,4}(?:\.\d+)?)(?![\w.])`, "i");
/** A volume not known yet ("Vol.tbd"): no number, but the series name ends there. */
const VOLUME_TO_BE_DECIDED = /\bvol(?:ume)?\.?\s*tbd\b/i;
const CHAPTER = new RegExp(String.raw`\b(?:chapters?|chap|chp|ch)\.?[\s-]*${NUMBER}${CHAPTER_END}|\bc${NUMBER}${CHAPTER_END}`, "i");
const EPISODE = new RegExp(String.raw`\b(?:episode|ep)\.?[\s-]*${NUMBER}(?![\w.])`, "i");
/** "#12", "#12.5", a variant "#27AU"; "issue #25". */
const HASH_NUMBER = new RegExp(String.raw`(?:\bissue\s*)?#\s*(\d{1,5}(?:\.\d+)?[a-z]{0,3})(?![\w.])`, "i");
/** "(1 of 3)" in a bracket: issue 1 of a limited series. */
const NUMBER_OF_COUNT = /^\s*(\d{1,4})\s+of\s+\d{1,4}\s*$/i;
/** "04 - Asterix the Gladiator": an album's place in a collection, before its name. */
const LEADING_INDEX = /^\s*\d{1,3}\s+[-–—]\s+(?=\S)/;
/** A number standing alone, after a space, a hyphen or a year tag; it may carry a variant ("078.BEY"). */
const BARE_NUMBER = new RegExp(String.raw`(?<=[\s\-\u0000])(\d{1,5}(?:\.\d+)?(?:\.[A-Za-z]{1,4})?)(?![\w.])`, "g");
const SEPARATORS = /^[\s\-–—:.,_\u0000]+|[\s\-–—:.,_\u0000]+$/g;
/** Any extension that starts with a letter ("12.5" has none). */
const EXTENSION = /\.[a-z][a-z0-9]{1,4}$/i;

interface Token {
  start: number;
  end: number;
}

export function parseFileName(fileName: string): BookMetadata {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1).replace(EXTENSION, "");
  const dated = datesCut(` ${base.replaceAll("_", " ").replace(LEADING_INDEX, "")} `);
  // Volume and chapter markers in brackets count; the rest of a bracket is a release tag.
  let innerVolume: string | undefined;
  let innerNumber: string | undefined;
  let text = dated.text.replace(BRACKET_GROUP, (_group, square: string | undefined, round: string | undefined) => {
    const inside = ` ${square ?? round ?? ""} `;
    innerVolume ??= VOLUME.exec(inside)?.[1];
    innerNumber ??= firstGroup(CHAPTER.exec(inside)) ?? HASH_NUMBER.exec(inside)?.[1] ?? NUMBER_OF_COUNT.exec(inside)?.[1];
    return " ";
  });
  text = text.replace(/\s+/g, " ");

  const tokens: Token[] = [];
  const take = (match: RegExpExecArray | null | undefined): string | undefined => {
    const value = firstGroup(match);
    if (!match || value === undefined) return undefined;
    tokens.push({ start: match.index, end: match.index + match[0].length });
    return value;
  };
  const volume = take(VOLUME.exec(text)) ?? innerVolume;
  const volumeToBeDecided = VOLUME_TO_BE_DECIDED.exec(text);
  if (volumeToBeDecided) tokens.push({ start: volumeToBeDecided.index, end: volumeToBeDecided.index + volumeToBeDecided[0].length });
  // An episode word ends the series name even when a "#" gives the number.
  const episode = take(EPISODE.exec(text));
  const number =
    take(CHAPTER.exec(text)) ?? take(HASH_NUMBER.exec(text)) ?? episode ?? innerNumber ?? take(bareNumber(text, tokens, dated.year));
  const cuts = [...text.matchAll(new RegExp(CUT, "g"))].map((match) => match.index);

  const metadata: BookMetadata = {};
  if (dated.year !== undefined) metadata.year = dated.year;
  if (volume !== undefined) metadata.volume = Number(volume);
  if (number !== undefined) metadata.number = withoutLeadingZeros(number);
  if (tokens.length === 0 && cuts.length === 0) {
    const whole = clean(text.replace(BRACES, " "));
    // Only bracketed markers: the whole name is the series'.
    if (whole && (volume !== undefined || number !== undefined)) return { series: whole, ...metadata };
    return whole ? { ...metadata, title: whole } : metadata;
  }
  const seriesEnd = Math.min(...tokens.map((token) => token.start), ...cuts);
  const series = cleanSeries(text.slice(0, seriesEnd));
  const title = clean(titleText(text, tokens, cuts).replace(BRACES, " "));
  if (series) metadata.series = series;
  if (title) metadata.title = title;
  return metadata;
}

/** A folder named "Saga (2012) [Digital]" names the series "Saga" (and its year). */
export function parseFolderName(folderName: string): BookMetadata {
  let text = folderName.replaceAll("_", " ");
  const yearMatch = YEAR_TAG.exec(text);
  const year = yearMatch?.[1] ? plausibleYear(Number(yearMatch[1])) : undefined;
  text = text.replace(BRACKET_GROUP, " ").replace(BRACES, " ");
  const series = clean(text);
  return { ...(series ? { series } : {}), ...(year !== undefined ? { year } : {}) };
}

/**
 * The book's year and the name with its year tag or date replaced by CUT: "(YYYY)" first; else
 * the first date written out. Other year tags are left for the release-tag stripping.
 */
function datesCut(name: string): { text: string; year: number | undefined } {
  const yearTag = YEAR_TAG.exec(name);
  const tagged = yearTag?.[1] ? plausibleYear(Number(yearTag[1])) : undefined;
  if (yearTag && tagged !== undefined) return { text: name.replace(yearTag[0], ` ${CUT} `), year: tagged };
  for (const pattern of DATES) {
    const match = pattern.exec(name);
    const year = match?.[1] ? plausibleYear(Number(match[1])) : undefined;
    if (match && year !== undefined) return { text: name.replace(match[0], ` ${CUT} `), year };
  }
  return { text: name, year: undefined };
}

/**
 * The bare number that is the issue number: the one right before a " - title" separator or a
 * year tag when there is one, else the last one ("Spider-Man 2099 001" is issue 001). A number
 * at the very start is part of the name ("100 Bullets 012"), so is the book's year ("Free
 * Comic Book Day 2021 (2021)") and a number before a volume ("Fables 2010 Vol. 1"); the end of
 * a range is not one ("Bleach 001-003" is 001), and nothing inside another token counts.
 */
function bareNumber(text: string, taken: readonly Token[], year: number | undefined): RegExpExecArray | undefined {
  const afterTokens = taken.length === 0 ? 0 : Math.max(...taken.map((token) => token.end));
  const candidates = [...text.matchAll(BARE_NUMBER)].filter(
    (match) =>
      clean(text.slice(0, match.index)) !== "" &&
      match.index >= afterTokens &&
      !/\d-$/.test(text.slice(0, match.index)) &&
      !(year !== undefined && Number(match[1]) === year),
  );
  const beforeSeparator = candidates.find((match) => /^\s*(?:[-–—]\s|\u0000)/.test(text.slice(match.index + match[0].length)));
  return (beforeSeparator ?? candidates.at(-1)) as RegExpExecArray | undefined;
}

/**
 * The title: what follows the last number or volume, up to a year tag; when nothing does, what
 * follows the year tag ("Captain Science #001 (1950) The Beginning").
 */
function titleText(text: string, tokens: readonly Token[], cuts: readonly number[]): string {
  const afterMarkers = tokens.length === 0 ? 0 : Math.max(...tokens.map((token) => token.end));
  const nextCut = cuts.find((cut) => cut >= afterMarkers);
  const between = text.slice(afterMarkers, nextCut ?? text.length);
  if (tokens.length > 0 && clean(between) !== "") return between;
  const lastCut = Math.max(...cuts, afterMarkers);
  return text.slice(lastCut);
}

function firstGroup(match: RegExpExecArray | null | undefined): string | undefined {
  return match?.slice(1).find((group) => group !== undefined);
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

/**
 * A series name: separators trimmed, but a final dot that ends a word before a space stays
 * ("Warawanai Neko. - Vol. 06"); one glued to the marker is a separator ("Gantz.V26").
 */
function cleanSeries(raw: string): string {
  let end = raw.length;
  while (end > 0) {
    const last = raw[end - 1]!;
    const dotEndingAWord = last === "." && end < raw.length && /\s/.test(raw[end]!) && /\w/.test(raw[end - 2] ?? "");
    if (dotEndingAWord || !/[\s\-–—:.,_\u0000]/.test(last)) break;
    end--;
  }
  return clean(raw.slice(0, end)) + (raw[end - 1] === "." ? "." : "");
}
