/**
 * Finds the words a template shows that do not come from the catalogs: text between tags and the
 * values of the attributes a person reads or hears (title, aria-label, placeholder, alt,
 * hx-confirm...) with a letter outside `<% %>` tags, and quoted words an output tag (`<%= %>`)
 * writes itself (`<%= done ? 'Saved' : 'Save' %>`). Allowed: punctuation, numbers, the output of
 * `<% %>` tags (`it.t(...)`, data), the brand name, and what <script>, <style>, <code>, <kbd>,
 * <samp> and <pre> hold (programs and literal input, not prose).
 */
const READ_ATTRIBUTES = ["title", "aria-label", "aria-description", "aria-roledescription", "placeholder", "alt", "hx-confirm", "data-confirm"];
const NOT_PROSE = new Set(["script", "style", "code", "kbd", "samp", "pre"]);
/** Names that are not translated: the product and the databases. */
const BRAND = /\b(Longbox|PostgreSQL|SQLite)\b/g;
const LETTER = /\p{L}/u;
const ETA_TAG = /<%[\s\S]*?%>/g;

export interface LiteralText {
  line: number;
  text: string;
}

const hasWords = (text: string) => LETTER.test(text.replace(ETA_TAG, "").replace(BRAND, ""));

/** Quoted words an output tag writes: a string literal with a letter that is not a message id, path, or argument of a helper. */
function quotedWords(expression: string): string[] {
  const found: string[] = [];
  for (const match of expression.matchAll(/(["'`])((?:(?!\1)[^\\]|\\.)*)\1/g)) {
    const literal = match[2]!;
    const before = expression.slice(0, match.index).trimEnd();
    // Helper arguments and comparisons are not shown: it.t("id"), it.asset('x'), kind === 'series'.
    if (/(\bt|asset|urlWith|fieldState|encodeURIComponent|includes|startsWith|join)\($/.test(before) || /[=!]==?$/.test(before)) continue;
    if (/^[a-z][a-zA-Z0-9]*(\.[a-zA-Z0-9-]+)+$/.test(literal)) continue; // a message id
    if (/^[\w/.#?=&:-]*$/.test(literal) && !/[A-Z]/.test(literal.charAt(0))) continue; // identifiers, paths, one lower-case token (classes, values)
    if (/^[a-z0-9-]+( [a-z0-9-]+)*$/.test(literal) && /\b(button|small|primary|danger|muted|card|active|hidden|icon|check|open)\b/.test(literal)) continue; // class lists
    if (LETTER.test(literal.replace(BRAND, ""))) found.push(literal);
  }
  return found;
}

export function literalTexts(source: string): LiteralText[] {
  const found: LiteralText[] = [];
  const lineAt = (index: number) => source.slice(0, index).split("\n").length;
  let skipDepth = 0;
  let textStart = 0;
  let text = "";
  const flush = () => {
    if (skipDepth === 0 && hasWords(text)) found.push({ line: lineAt(textStart), text: text.replace(ETA_TAG, "…").trim() });
    text = "";
  };
  for (let index = 0; index < source.length; ) {
    if (source.startsWith("<%", index)) {
      const end = source.indexOf("%>", index) + 2;
      const tag = source.slice(index, end);
      if (/^<%[-_]?=/.test(tag)) {
        // Output within a sentence: part of the text run (a placeholder), but its own quoted words are literals.
        for (const words of quotedWords(tag.replace(/^<%[-_]?=|[-_]?%>$/g, ""))) found.push({ line: lineAt(index), text: words });
        if (!text) textStart = index;
        text += tag;
      } else flush();
      index = end;
      continue;
    }
    // A tag, also one whose name a template writes (`<<%= it.tag %>`).
    if (source[index] === "<" && (/[a-zA-Z/!]/.test(source[index + 1] ?? "") || source.startsWith("<%", index + 1))) {
      flush();
      let end = index + 1;
      let quote: string | null = null;
      while (end < source.length) {
        if (source.startsWith("<%", end)) {
          end = source.indexOf("%>", end) + 2;
          continue;
        }
        const char = source[end]!;
        if (quote) {
          if (char === quote) quote = null;
        } else if (char === '"' || char === "'") quote = char;
        else if (char === ">") break;
        end++;
      }
      const tag = source.slice(index, end + 1);
      const name = /^<(\/?)([a-zA-Z0-9-]+)/.exec(tag.replace(ETA_TAG, "x"));
      if (name && NOT_PROSE.has(name[2]!.toLowerCase())) skipDepth = Math.max(0, skipDepth + (name[1] ? -1 : 1));
      if (name && !name[1]) {
        for (const attribute of tag.matchAll(new RegExp(`\\s(${READ_ATTRIBUTES.join("|")})=(["'])((?:(?!\\2)[^<]|<%[\\s\\S]*?%>)*)\\2`, "g"))) {
          if (hasWords(attribute[3]!)) found.push({ line: lineAt(index), text: `${attribute[1]}="${attribute[3]!.replace(ETA_TAG, "…")}"` });
        }
      }
      index = end + 1;
      textStart = index;
      continue;
    }
    if (!text) textStart = index;
    text += source[index];
    index++;
  }
  flush();
  return found;
}
