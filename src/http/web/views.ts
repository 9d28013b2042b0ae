/**
 * Server-side rendering of the web interface with Eta (templates/, embedded at build time by
 * ./embedded-files-macro.ts). Eta was chosen because it escapes every `<%= %>` by default, has
 * layouts, partials and named blocks, compiles templates once to plain functions, needs no file
 * system (templates are loaded from strings, which suits the single executable) and has no
 * dependencies.
 *
 * Every page template starts with `<% layout("layout") %>` and sees, beside its own data,
 * `it.title`, `it.viewer` (the signed-in user and the CSRF token, or null), the page's language
 * (`it.t(id, values)` a message of its catalog, `it.date`, `it.number`, `it.size` formats,
 * `it.locale` its tag; src/i18n) and the helpers
 * `it.asset(path)` (URL of a static file with its content version) and `it.urlWith(...)`. The
 * layout (templates/layout.eta) offers the named blocks "head" (extra <link>/<meta>) and
 * "scripts" (extra <script src> tags, run after htmx) and `it.fullscreen` (no header, no
 * footer, no htmx: the readers).
 */
import { randomBytes } from "node:crypto";
import { Eta } from "eta/core";
import type { UserRecord } from "../../db";
import { MIN_PASSWORD_LENGTH } from "../../auth/passwords";
import type { Translator } from "../../i18n/translator";
import { assetUrl } from "./assets";
import { embeddedTemplates } from "./embedded-files-macro" with { type: "macro" };

export interface Viewer {
  user: UserRecord;
  csrfToken: string;
  /** The libraries of the page's menu (whole pages only, see page-guard.ts). */
  libraries?: NavigationLibrary[];
  /** The page's path, so the menu marks where the viewer is. */
  path?: string;
  /** The viewer's language (page-guard.ts): their setting, else their browser's, else the server's default. */
  translator: Translator;
}

export interface NavigationLibrary {
  id: string;
  name: string;
  seriesCount: number;
}

/** What every template is rendered with: the language of its words, the viewer's or given. */
export type TemplateData = { nonce?: string; [key: string]: unknown } & ({ translator: Translator } | { viewer: Viewer });

export type PageData = TemplateData & {
  title: string;
  viewer: Viewer | null;
};

type CspDirective =
  | "default-src"
  | "script-src"
  | "style-src"
  | "img-src"
  | "connect-src"
  | "font-src"
  | "media-src"
  | "frame-src"
  | "object-src"
  | "base-uri"
  | "form-action"
  | "frame-ancestors";

/**
 * Content-Security-Policy of every page: scripts and styles only from our own files (no inline
 * script, no inline style, no eval), images from ourselves, nothing may frame us.
 */
const PAGE_POLICY: Partial<Record<CspDirective, string[]>> = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'", "data:", "blob:"],
  "connect-src": ["'self'"],
  "font-src": ["'self'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
};

/**
 * Sources a page adds to the page policy. Scripts cannot be widened: no page may let anything
 * but our own files run with the site's privileges.
 */
type PolicyAdditions = Partial<Record<Exclude<CspDirective, "script-src">, string[]>>;

/** The page policy with more sources allowed (directives it lacks come last). */
function widenedPolicy(additions: PolicyAdditions): Partial<Record<CspDirective, string[]>> {
  const policy = { ...PAGE_POLICY };
  for (const [directive, sources] of Object.entries(additions) as [CspDirective, string[]][]) {
    policy[directive] = [...(policy[directive] ?? []), ...sources];
  }
  return policy;
}

function policyHeader(policy: Partial<Record<CspDirective, string[]>>): string {
  return Object.entries(policy)
    .map(([directive, sources]) => `${directive} ${sources.join(" ")}`)
    .join("; ");
}

/**
 * The policy of a page that shows what others wrote in frames of the site's origin (the
 * readers): the page policy with more sources allowed, but scripts run only with this
 * response's nonce, not merely from our own files. A blob: or srcdoc document made by the page
 * inherits its policy, so no
 * markup of a book can run a script, not even one of the site's own files (htmx would do what
 * the book's markup asks with the reader's cookies). The page must carry the nonce on every
 * `<script>` (`nonce` in its PageData) and must never be cached (`NONCE_PAGE_HEADERS`): a nonce
 * is secret only while it is new.
 */
export function noncePolicyAllowing(nonce: string, additions: PolicyAdditions): string {
  return policyHeader({ ...widenedPolicy(additions), "script-src": [`'nonce-${nonce}'`] });
}

/** A fresh script nonce (128 random bits), for one response. */
export function scriptNonce(): string {
  return randomBytes(16).toString("base64");
}

/** A page with a script nonce is stored by no cache, so every load gets a new page and a new nonce (never a 304). */
export const NONCE_PAGE_HEADERS = { "cache-control": "no-store" } as const;

const CONTENT_SECURITY_POLICY = policyHeader(PAGE_POLICY);

const eta = new Eta({ autoEscape: true, autoTrim: [false, "nl"], cache: true });
for (const [name, source] of Object.entries(embeddedTemplates())) eta.loadTemplate(name, source);

/**
 * A path with query parameters replaced (null, "" or [] removes one; a list repeats the
 * parameter); for sort, filter and paging links.
 */
export function urlWith(path: string, query: Record<string, string | number | string[] | null | undefined>): string {
  const url = new URL(path, "http://x");
  for (const [key, value] of Object.entries(query)) {
    url.searchParams.delete(key);
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
    else if (value !== null && value !== undefined && value !== "") url.searchParams.set(key, String(value));
  }
  return url.pathname + url.search;
}

/**
 * `it.fieldState(it.fieldErrors, field, hint)`: the attributes of a form field, given the
 * sentences of the fields the server refused (forms.ts formProblem): a refused field is invalid,
 * described by its error (partials/field-error, id `<field>-error`) and its hint, and the first
 * refused one takes the focus. Raw output (`<%~`): field names and hint ids are the template's own.
 */
function fieldState(problems: Record<string, string> | undefined, field: string, hint?: string): string {
  const refused = problems?.[field] !== undefined;
  const describedBy = [...(refused ? [`${field}-error`] : []), ...(hint ? [hint] : [])].join(" ");
  const focus = refused && Object.keys(problems!)[0] === field ? " autofocus" : "";
  return `${refused ? ' aria-invalid="true"' : ""}${describedBy ? ` aria-describedby="${describedBy}"` : ""}${focus}`;
}

/** `it.minPasswordLength`: the `minlength` of every field that sets a password, the rule the server checks. */
const helpers = { asset: assetUrl, urlWith, fieldState, minPasswordLength: MIN_PASSWORD_LENGTH };

/**
 * `it.nonceAttribute` is ` nonce="..."` on a page given a `nonce` (every `<script>` of the
 * layout and of such a page writes it), else empty.
 */
/**
 * The messages the page's scripts show (static/js), for the layout's `#page-messages` JSON block:
 * the scripts read their words there instead of carrying English (static/js/page-messages.js).
 * Safe inside `<script type="application/json">`: no `<` survives.
 */
function pageMessages(translator: Translator): string {
  const { clientMessage } = translator;
  const messages = {
    "theme.light": clientMessage("script.theme.light"),
    "theme.dark": clientMessage("script.theme.dark"),
    "theme.system": clientMessage("script.theme.system"),
    copied: clientMessage("script.copied"),
    signingIn: clientMessage("script.oidc.signingIn"),
    signInFailed: clientMessage("script.oidc.failed", ["reason"]),
    signInRefused: clientMessage("script.oidc.refused", ["status"]),
    selected: clientMessage("script.selection.count", [], true),
    itemPosition: clientMessage("readingListItems.namePositionOfTotal", ["name", "position", "total"]),
    moved: clientMessage("script.order.moved", ["name", "position", "total"]),
    notSaved: clientMessage("script.order.notSaved", ["name"]),
    alreadyFirst: clientMessage("script.order.alreadyFirst", ["name"]),
    alreadyLast: clientMessage("script.order.alreadyLast", ["name"]),
    untitled: clientMessage("script.reader.untitled"),
    readerPage: clientMessage("script.reader.page", ["percent", "position", "total"]),
    readerPages: clientMessage("script.reader.pages", ["percent", "position", "last", "total"]),
    openFailed: clientMessage("script.reader.openFailed", ["reason"]),
    directionSaved: clientMessage("script.reader.directionSaved"),
    directionNotSaved: clientMessage("script.reader.directionNotSaved"),
    coverSaved: clientMessage("script.reader.coverSaved", ["page"]),
    coverNotSaved: clientMessage("script.reader.coverNotSaved"),
  };
  return JSON.stringify(messages).replace(/</g, "\\u003c");
}

const pageMessagesOf = new Map<string, string>();

export function renderTemplate(name: string, data: TemplateData): string {
  const translator = "translator" in data ? (data.translator as Translator) : (data.viewer as Viewer).translator;
  return eta.render(name, {
    ...helpers,
    ...data,
    t: translator.t,
    date: translator.date,
    number: translator.number,
    size: translator.size,
    html: translator.html,
    locale: translator.locale,
    pageMessages: () => {
      let messages = pageMessagesOf.get(translator.locale);
      if (messages === undefined) {
        messages = pageMessages(translator);
        pageMessagesOf.set(translator.locale, messages);
      }
      return messages;
    },
    nonceAttribute: data.nonce ? ` nonce="${data.nonce}"` : "",
  });
}

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  // Pages show per-user data: never from a shared cache, and revalidated on back/forward.
  "cache-control": "private, no-cache",
  vary: "HX-Request, Cookie",
} as const;

export function htmlResponse(html: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(html, { status, headers: { ...HTML_HEADERS, ...headers } });
}

/** A full page (the template uses the layout) or, with `fragment`, a template without it. */
export function page(name: string, data: PageData, status = 200, headers: Record<string, string> = {}): Response {
  return htmlResponse(renderTemplate(name, data), status, headers);
}

/**
 * Whether to answer with a fragment: htmx asked for part of a page (search results, the next
 * page of a grid). Boosted navigation (HX-Boosted) gets the whole page, so history works.
 */
export function wantsFragment(request: Request): boolean {
  return (
    request.headers.get("hx-request") === "true" &&
    request.headers.get("hx-boosted") !== "true" &&
    request.headers.get("hx-history-restore-request") !== "true"
  );
}
