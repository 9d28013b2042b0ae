/**
 * The message catalogs of the web interface and the emails, embedded at build time. English is
 * the source language: every other catalog translates its ids (tests/i18n/catalogs.test.ts), and
 * an id a catalog lacks falls back to the English message.
 */
import { embeddedCatalogs } from "./catalogs-macro" with { type: "macro" };

export const SOURCE_LOCALE = "en";

export type Catalog = Readonly<Record<string, string>>;

const catalogs: Record<string, Catalog> = embeddedCatalogs();

/** Locales with a catalog, English first (the language select lists them in this order). */
export const AVAILABLE_LOCALES: readonly string[] = [SOURCE_LOCALE, ...Object.keys(catalogs).filter((locale) => locale !== SOURCE_LOCALE).sort()];

export function catalogOf(locale: string): Catalog {
  return catalogs[locale] ?? catalogs[SOURCE_LOCALE]!;
}

export function sourceCatalog(): Catalog {
  return catalogs[SOURCE_LOCALE]!;
}

/** Whether the English catalog has the message `id` (for ids built from the API's codes). */
export function hasMessage(id: string): boolean {
  return Object.hasOwn(sourceCatalog(), id);
}

export function isAvailableLocale(locale: string): boolean {
  return Object.hasOwn(catalogs, locale);
}

/** The name of a language in itself ("Deutsch", "日本語"), for the language select. */
export function languageName(locale: string): string {
  const name = new Intl.DisplayNames([locale], { type: "language" }).of(locale) ?? locale;
  return name.charAt(0).toLocaleUpperCase(locale) + name.slice(1);
}
