/**
 * What the i18n layer costs a page (issue 35), in process: the series grid fragment with 48
 * cards (the library page's heaviest part: two messages per card, one with a plural) and the
 * sign-in page with its layout, rendered with the English catalog, with the Japanese one when
 * present, and with `t` replaced by a function that returns the id (the same templates without
 * message lookup and formatting); and the language negotiation each page request makes. The
 * variants alternate over `--rounds` rounds and each keeps its fastest round, so a busy machine
 * (other processes) weighs on all alike.
 *
 *   bun bench/i18n-render.ts [--iterations 2000] [--rounds 10]
 */
import { parseArgs } from "node:util";
import { AVAILABLE_LOCALES } from "../src/i18n/catalogs";
import { negotiateLocale } from "../src/i18n/negotiate";
import { Translator, translatorFor } from "../src/i18n/translator";
import { renderTemplate } from "../src/http/web/views";

const { values } = parseArgs({ options: { iterations: { type: "string", default: "2000" }, rounds: { type: "string", default: "10" } } });
const ITERATIONS = Number(values.iterations);
const ROUNDS = Number(values.rounds);

/** The templates without the catalogs: `t` answers the id, the formats stay. */
class IdOnly extends Translator {
  override t = (id: string) => id;
}

const rows = Array.from({ length: 48 }, (_, index) => ({
  id: `0190a0b0-0000-7000-8000-${String(index).padStart(12, "0")}`,
  name: `Series ${index}`,
  bookCount: index % 7,
  booksReadCount: 0,
  booksInProgressCount: 0,
  year: 2000 + index,
}));
const grid = (translator: Translator) =>
  renderTemplate("partials/series-grid-page", { translator, rows, kind: "series", page: 1, total: 480, nextUrl: "/libraries/x?page=2", fragment: true });
const login = (translator: Translator) =>
  renderTemplate("pages/login", { translator, title: translator.t("login.title"), viewer: null, next: "/", providers: [], registrationEnabled: true });

function microseconds(render: () => unknown): number {
  for (let index = 0; index < 200; index++) render();
  const start = Bun.nanoseconds();
  for (let index = 0; index < ITERATIONS; index++) render();
  return (Bun.nanoseconds() - start) / ITERATIONS / 1000;
}

const rowsOut: string[] = ["| render | id only (no i18n) | en | " + (AVAILABLE_LOCALES.includes("ja") ? "ja |" : "|"), "|---|---|---|---|"];
const translators = [new IdOnly("en"), translatorFor("en"), ...(AVAILABLE_LOCALES.includes("ja") ? [translatorFor("ja")] : [])];
for (const [name, render] of [
  ["series grid, 48 cards", grid],
  ["sign-in page with layout", login],
] as const) {
  const fastest = translators.map(() => Infinity);
  for (let round = 0; round < ROUNDS; round++) {
    translators.forEach((translator, index) => (fastest[index] = Math.min(fastest[index]!, microseconds(() => render(translator)))));
  }
  rowsOut.push(`| ${name} | ${fastest.map((time) => `${time.toFixed(1)} µs`).join(" | ")} |`);
}
const acceptLanguage = "fr-CH,fr;q=0.9,en;q=0.8,de;q=0.7,*;q=0.5";
let negotiation = Infinity;
for (let round = 0; round < ROUNDS; round++) negotiation = Math.min(negotiation, microseconds(() => negotiateLocale({ userLocale: null, acceptLanguage, defaultLocale: "en" })));
rowsOut.push(`| negotiation of \`${acceptLanguage}\` | | ${negotiation.toFixed(1)} µs | |`);
console.log(rowsOut.join("\n"));
