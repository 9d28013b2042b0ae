/**
 * Messages and formats in one locale: `t(id, values)` formats the catalog's ICU MessageFormat
 * message (plural rules, placeholders) with intl-messageformat, and the date, number and size
 * helpers use `Intl` for the same locale. Compiled messages and `Intl` formatters are cached per
 * locale, so a page pays for a message's parse once per process; and formatted messages are
 * kept by their values (a grid repeats the same few counts), since formatting a plural costs
 * microseconds (Intl.PluralRules.select alone is 2.5 µs in Bun): bench/i18n-render.ts.
 */
import { IntlMessageFormat, type PrimitiveType } from "intl-messageformat";
import { catalogOf, SOURCE_LOCALE, sourceCatalog } from "./catalogs";

export type MessageValues = Record<string, PrimitiveType>;

/** Formatted messages kept per translator, at most; then the cache starts again. */
const MAX_FORMATTED = 20_000;

type Formatters = NonNullable<ConstructorParameters<typeof IntlMessageFormat>[3]>["formatters"];

/**
 * intl-messageformat's `Intl` objects for one locale, cached without its memoizer's key
 * serialization, and plural categories of small whole numbers remembered.
 */
function formattersFor(locale: string): Formatters {
  const numbers = new Map<string, Intl.NumberFormat>();
  const dates = new Map<string, Intl.DateTimeFormat>();
  const plurals = new Map<string, Intl.PluralRules>();
  const cached = <F>(cache: Map<string, F>, options: object | undefined, make: () => F): F => {
    const key = options ? JSON.stringify(options) : "";
    let format = cache.get(key);
    if (!format) {
      format = make();
      cache.set(key, format);
    }
    return format;
  };
  return {
    getNumberFormat: (_locales, options) => cached(numbers, options, () => new Intl.NumberFormat(locale, options)),
    getDateTimeFormat: (_locales, options) => cached(dates, options, () => new Intl.DateTimeFormat(locale, options)),
    getPluralRules: (_locales, options) =>
      cached(plurals, options, () => {
        const rules = new Intl.PluralRules(locale, options);
        const categories: Intl.LDMLPluralRule[] = [];
        const select = (count: number) => (Number.isInteger(count) && count >= 0 && count < 1000 ? (categories[count] ??= rules.select(count)) : rules.select(count));
        return Object.assign(Object.create(rules), { select }) as Intl.PluralRules;
      }),
  };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const SIZE_UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;
const TIME_UNITS = ["minute", "hour", "day"] as const;

export class Translator {
  private readonly compiled = new Map<string, IntlMessageFormat>();
  private readonly formatted = new Map<string, string>();
  private readonly formatters: Formatters;
  private listFormat: Intl.ListFormat | undefined;
  private readonly dateFormats = new Map<string, Intl.DateTimeFormat>();
  private readonly numberFormats = new Map<string, Intl.NumberFormat>();

  constructor(readonly locale: string) {
    this.formatters = formattersFor(locale);
  }

  /** The message `id` with its placeholders filled; an id this catalog lacks is English, an unknown id throws. */
  t = (id: string, values?: MessageValues): string => {
    let key = id;
    if (values) for (const name in values) key += `\u0000${name}\u0001${values[name]}`;
    let text = this.formatted.get(key);
    if (text === undefined) {
      text = String(this.message(id).format(values));
      if (this.formatted.size >= MAX_FORMATTED) this.formatted.clear();
      this.formatted.set(key, text);
    }
    return text;
  };

  /**
   * A message with markup, as HTML: its `<name>...</name>` tags become the elements `tags`
   * gives (`{ link: '<a href="/register">' }`; the closing tag follows from the opening one),
   * and everything else, the catalog's text and the values, is escaped. For sentences with a
   * link or an emphasis inside, so a translator sees and orders the whole sentence.
   */
  html = (id: string, values: MessageValues = {}, tags: Record<string, string> = {}): string => {
    // Tags and values share one namespace in intl-messageformat: a tag named like a value would
    // replace it, and the page would show the tag's function instead of the value.
    const clash = Object.keys(tags).find((name) => name in values);
    if (clash) throw new Error(`message "${id}": the tag <${clash}> has the name of a value`);
    const opened: string[] = [];
    const markers = Object.fromEntries(
      Object.keys(tags).map((name) => [
        name,
        (chunks: string[]) => {
          opened.push(name);
          const index = opened.length - 1;
          return `\u0001${index}\u0002${chunks.join("")}\u0001/${index}\u0002`;
        },
      ]),
    );
    const parts = this.message(id).format({ ...values, ...markers } as never);
    const text = Array.isArray(parts) ? parts.join("") : String(parts);
    return escapeHtml(text).replace(/\u0001(\/?)(\d+)\u0002/g, (_, closing: string, index: string) => {
      const opening = tags[opened[Number(index)]!]!;
      return closing ? `</${/^<([a-zA-Z0-9-]+)/.exec(opening)?.[1] ?? "span"}>` : opening;
    });
  };

  private message(id: string): IntlMessageFormat {
    let message = this.compiled.get(id);
    if (!message) {
      const own = catalogOf(this.locale)[id];
      const source = own ?? sourceCatalog()[id];
      if (source === undefined) throw new Error(`no message "${id}" in the English catalog`);
      const locale = own === undefined ? SOURCE_LOCALE : this.locale;
      message = new IntlMessageFormat(source, locale, undefined, { formatters: locale === this.locale ? this.formatters : undefined });
      this.compiled.set(id, message);
    }
    return message;
  }

  /**
   * A message for a script of the page, which formats it without a library: its placeholders
   * stay as `{name}` for the script to fill, and with `count`, one text per plural category of
   * this locale (`{"one": "# selected", "other": "# selected"}`, `#` the number) for the script
   * to choose with `Intl.PluralRules`. Such messages use plain placeholders, and a plural only
   * on `count`.
   */
  clientMessage = (id: string, placeholders: string[] = [], count = false): string | Record<string, string> => {
    const values: MessageValues = Object.fromEntries(placeholders.map((name) => [name, `{${name}}`]));
    if (!count) return this.t(id, values);
    const rules = new Intl.PluralRules(this.locale);
    const forms: Record<string, string> = {};
    for (const category of rules.resolvedOptions().pluralCategories) {
      // A number of this category (every category has one under 200), written back as `#`.
      let sample = 0;
      while (sample < 200 && rules.select(sample) !== category) sample++;
      forms[category] = this.t(id, { ...values, count: sample }).replace(this.number(sample), "#");
    }
    return forms;
  };

  /** A date (and with `time`, its time) as this locale writes it. */
  date = (value: Date | string | number, style: "date" | "dateTime" = "date"): string => {
    const key = style;
    let format = this.dateFormats.get(key);
    if (!format) {
      format = new Intl.DateTimeFormat(this.locale, style === "date" ? { dateStyle: "medium" } : { dateStyle: "medium", timeStyle: "short" });
      this.dateFormats.set(key, format);
    }
    return format.format(new Date(value));
  };

  /** Items joined as this locale lists them ("Genres, Tags and Year"). */
  list = (items: string[]): string => {
    this.listFormat ??= new Intl.ListFormat(this.locale, { type: "conjunction" });
    return this.listFormat.format(items);
  };

  /** A number with this locale's digit grouping. */
  number = (value: number): string => this.numberFormat("decimal").format(value);

  /** A file size in bytes, in the largest unit under 1024 ("1.5 MB", "1,5 Mo"). */
  size = (bytes: number): string => {
    let unit = 0;
    let value = bytes;
    while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return this.numberFormat(SIZE_UNITS[unit]!).format(value);
  };

  /** A duration in the largest unit that fits ("12 minutes", "5.3 hours", "3 days"); under a minute it is 0 minutes. */
  duration = (seconds: number): string => {
    if (seconds < 3600) return this.numberFormat("minute").format(Math.floor(seconds / 60));
    if (seconds < 2 * 86_400) return this.numberFormat("hour").format(seconds / 3600);
    return this.numberFormat("day").format(Math.floor(seconds / 86_400));
  };

  private numberFormat(unit: "decimal" | (typeof SIZE_UNITS)[number] | (typeof TIME_UNITS)[number]): Intl.NumberFormat {
    let format = this.numberFormats.get(unit);
    if (!format) {
      format =
        unit === "decimal"
          ? new Intl.NumberFormat(this.locale)
          : new Intl.NumberFormat(this.locale, { style: "unit", unit, unitDisplay: unit === "byte" || TIME_UNITS.includes(unit as never) ? "long" : "short", maximumFractionDigits: unit === "byte" ? 0 : 1 });
      this.numberFormats.set(unit, format);
    }
    return format;
  }
}

const translators = new Map<string, Translator>();

/** The one translator of a locale (its caches live as long as the process). */
export function translatorFor(locale: string): Translator {
  let translator = translators.get(locale);
  if (!translator) {
    translator = new Translator(locale);
    translators.set(locale, translator);
  }
  return translator;
}
