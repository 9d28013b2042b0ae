/**
 * The message catalogs (src/i18n/messages/*.json, issue 35): every catalog translates exactly the
 * English catalog's ids, each message is valid ICU MessageFormat with the English message's
 * placeholders, every id is used by a template or the code, no template shows words outside the
 * catalogs, and the interface's words use no emoji (they need a font the reader may lack).
 * New catalog files are checked as soon as they are dropped in.
 *
 * One language: `bun test tests/i18n/catalogs.test.ts -t "fr"`.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { IntlMessageFormat } from "intl-messageformat";
import { filesUnder } from "../helpers/files";
import { literalTexts } from "./template-text";

const ROOT = join(import.meta.dir, "../..");
const MESSAGES = join(ROOT, "src/i18n/messages");
const PICTOGRAPH = /\p{Extended_Pictographic}/u;

const catalog = (locale: string): Record<string, string> => JSON.parse(readFileSync(join(MESSAGES, `${locale}.json`), "utf8"));
const english = catalog("en");
const locales = readdirSync(MESSAGES)
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.replace(/\.json$/, ""));

/** intl-messageformat's element types: literal text, and a `<tag>` (the others are values). */
const LITERAL = 0;
const TAG = 8;

/** The names of a message's values (arguments, plurals, selects) and of its tags, nested ones too. */
function elementNames(message: string, locale: string): { values: Set<string>; tags: Set<string> } {
  const names = { values: new Set<string>(), tags: new Set<string>() };
  const walk = (elements: unknown[]) => {
    for (const element of elements as { type: number; value?: unknown; options?: Record<string, { value: unknown[] }>; children?: unknown[] }[]) {
      if (typeof element.value === "string" && element.type !== LITERAL) (element.type === TAG ? names.tags : names.values).add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
      if (element.children) walk(element.children);
    }
  };
  walk(new IntlMessageFormat(message, locale).getAst());
  return names;
}

/** A message's placeholders, values and tags, in one sorted list. */
function placeholders(message: string, locale: string): string[] {
  const { values, tags } = elementNames(message, locale);
  return [...values, ...tags].sort();
}

/** The files under `folder` with one of these endings, by their full paths. */
const filesEndingIn = (folder: string, extensions: string[]) =>
  filesUnder(folder)
    .filter((file) => extensions.some((extension) => file.endsWith(extension)))
    .map((file) => join(folder, file));

describe.each(locales)("catalog %s", (locale) => {
  const messages = catalog(locale);

  test("has every id of the English catalog and no other", () => {
    expect({ missing: Object.keys(english).filter((id) => !(id in messages)), unknown: Object.keys(messages).filter((id) => !(id in english)) }).toEqual({
      missing: [],
      unknown: [],
    });
  });

  test("each message is ICU MessageFormat with the English message's placeholders, no tag named like a value, and no emoji", () => {
    const wrong: string[] = [];
    for (const [id, message] of Object.entries(messages)) {
      if (!(id in english)) continue;
      try {
        const own = placeholders(message, locale);
        const source = placeholders(english[id]!, "en");
        if (own.join() !== source.join()) wrong.push(`${id}: placeholders ${own.join(", ")} instead of ${source.join(", ")}`);
        // Tags and values share one namespace when formatted: the tag would replace the value.
        const { values, tags } = elementNames(message, locale);
        for (const tag of tags) if (values.has(tag)) wrong.push(`${id}: the tag <${tag}> has the name of a value`);
      } catch (error) {
        wrong.push(`${id}: ${(error as Error).message}`);
      }
      if (PICTOGRAPH.test(message)) wrong.push(`${id}: an emoji or pictograph`);
    }
    expect(wrong).toEqual([]);
  });
});

test("every id of the English catalog is used by a template, a page module or a script", () => {
  const sources = [
    ...filesEndingIn(join(ROOT, "templates"), [".eta"]),
    ...filesEndingIn(join(ROOT, "src"), [".ts"]).filter((file) => !file.includes("/i18n/messages/")),
    ...filesEndingIn(join(ROOT, "static"), [".js"]),
  ].map((file) => readFileSync(file, "utf8"));
  const literals = new Set<string>();
  // Ids built from a prefix and a value (`apiError.${code}`): every id with the prefix counts as used.
  const prefixes = new Set<string>();
  for (const source of sources) {
    for (const match of source.matchAll(/["'`]([a-zA-Z][\w-]*(?:\.[\w-]+)+)["'`]/g)) literals.add(match[1]!);
    for (const match of source.matchAll(/`([a-zA-Z][\w-]*(?:\.[\w-]+)*\.)\$\{/g)) prefixes.add(match[1]!);
  }
  const unused = Object.keys(english).filter((id) => !literals.has(id) && ![...prefixes].some((prefix) => id.startsWith(prefix)));
  expect(unused).toEqual([]);
});

test("no template shows words that are not from the catalogs", () => {
  const folder = join(ROOT, "templates");
  const found = filesEndingIn(folder, [".eta"]).flatMap((file) =>
    literalTexts(readFileSync(file, "utf8")).map(({ line, text }) => `${relative(folder, file)}:${line}: ${text}`),
  );
  expect(found).toEqual([]);
});

test("the checker finds literal words in text, in read attributes and in output tags", () => {
  const texts = literalTexts(
    `<p>Hello <%= it.name %></p><img alt="A cover"><button title="<%= it.t("x.y") %>">·</button><%= it.done ? 'Saved' : it.t("a.b") %><code>--flag</code> 42 · <%= it.t("c.d", { count: 2 }) %>`,
  ).map(({ text }) => text);
  expect(texts).toEqual(["Hello …", 'alt="A cover"', "Saved"]);
});
