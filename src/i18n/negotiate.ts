/**
 * Which language a page is shown in: the user's own setting, else the best match of the
 * browser's Accept-Language (parsed by negotiator, RFC 9110's grammar and quality values), else
 * the server's default (`application.default_locale`).
 */
import Negotiator from "negotiator";
import { AVAILABLE_LOCALES } from "./catalogs";

/**
 * Tags browsers send for a catalog whose tag they would not match: negotiator matches `fr-CA`
 * to `fr` and `pt` to `pt-BR` by their prefix, but Chinese names its script (`zh-Hans`) where
 * browsers name a region.
 */
const REGION_TAGS: Record<string, string> = { "zh-CN": "zh-Hans", "zh-SG": "zh-Hans", "zh-MY": "zh-Hans", "pt-PT": "pt-BR" };

export interface LocaleSources {
  /** The signed-in user's setting (null: follow the browser). */
  userLocale?: string | null;
  acceptLanguage?: string | null;
  defaultLocale: string;
}

/** The page's locale among `available` (the catalogs; another list only in tests of the rules). */
export function negotiateLocale({ userLocale, acceptLanguage, defaultLocale }: LocaleSources, available: readonly string[] = AVAILABLE_LOCALES): string {
  if (userLocale && available.includes(userLocale)) return userLocale;
  if (acceptLanguage) {
    const candidates = [...available, ...Object.keys(REGION_TAGS).filter((tag) => available.includes(REGION_TAGS[tag]!))];
    const [best] = new Negotiator({ headers: { "accept-language": acceptLanguage } }).languages(candidates);
    if (best) return REGION_TAGS[best] ?? best;
  }
  return defaultLocale;
}
