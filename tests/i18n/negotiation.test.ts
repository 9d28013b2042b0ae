/**
 * Which language a page takes (issue 35): the user's setting, else the best of the browser's
 * Accept-Language among the catalogs, else the server's default; browsers' region tags for
 * Chinese and Portuguese reach the catalogs named by script and country.
 */
import { expect, test } from "bun:test";
import { negotiateLocale } from "../../src/i18n/negotiate";

const AVAILABLE = ["en", "de", "es", "fr", "ja", "pt-BR", "zh-Hans"];
const negotiate = (acceptLanguage: string | null, userLocale: string | null = null, defaultLocale = "en") =>
  negotiateLocale({ userLocale, acceptLanguage, defaultLocale }, AVAILABLE);

test("the user's setting wins over the browser's languages", () => {
  expect(negotiate("fr-FR,fr;q=0.9", "de")).toBe("de");
});

test("a setting without a catalog (one removed since) falls back to the browser's language", () => {
  expect(negotiate("fr", "it")).toBe("fr");
});

test("the browser's languages are taken in the order of their quality, regions matching their language", () => {
  expect(negotiate("it-IT,it;q=0.9,de;q=0.8,fr;q=0.7")).toBe("de");
  expect(negotiate("fr-CA")).toBe("fr");
  expect(negotiate("es-419,es;q=0.9")).toBe("es");
  expect(negotiate("ja-JP")).toBe("ja");
  expect(negotiate("pt-BR")).toBe("pt-BR");
  expect(negotiate("pt")).toBe("pt-BR");
  expect(negotiate("zh-CN,zh;q=0.9")).toBe("zh-Hans");
  expect(negotiate("zh")).toBe("zh-Hans");
  expect(negotiate("en;q=0.1,de")).toBe("de");
});

test("without a language the browser and the catalogs share, the server's default", () => {
  expect(negotiate("it, ko;q=0.5", null, "fr")).toBe("fr");
  expect(negotiate(null, null, "ja")).toBe("ja");
  expect(negotiate("", null, "es")).toBe("es");
  expect(negotiate("de;q=0", null, "es")).toBe("es");
});
