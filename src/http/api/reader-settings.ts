/**
 * The caller's web reader settings: defaults (/api/v1/reader-settings) and per series
 * (/api/v1/series/:id/reader-settings). PATCH bodies name only the fields they change; null
 * forgets a field (it falls back to the defaults, then to the reader's own choice). Unknown
 * fields are dropped, as in every body of the API.
 */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { IdParams } from "../params";
import { answers, NoContent, Nullable, Shape } from "./schemas";

/** Each setting's allowed values; the readers offer exactly these (static/js/reader). */
const Mode = t.Union([t.Literal("ltr"), t.Literal("rtl"), t.Literal("vertical"), t.Literal("webtoon")]);
const Fit = t.Union([t.Literal("screen"), t.Literal("width"), t.Literal("height"), t.Literal("original")]);
const Spread = t.Union([t.Literal("auto"), t.Literal("single"), t.Literal("double")]);
const EpubFont = t.Union([t.Literal("publisher"), t.Literal("serif"), t.Literal("sans"), t.Literal("mono")]);
const EpubSize = t.Integer({ minimum: 50, maximum: 300, description: "percent of the book's own text size" });
const EpubTheme = t.Union([t.Literal("light"), t.Literal("sepia"), t.Literal("dark")]);

/** An answer: open to fields added later, as every answer of the API (./schemas.ts). */
const ReaderSettings = Shape(
  {
    mode: t.Optional(Mode),
    fit: t.Optional(Fit),
    spread: t.Optional(Spread),
    epubFont: t.Optional(EpubFont),
    epubSize: t.Optional(EpubSize),
    epubTheme: t.Optional(EpubTheme),
  },
  { $id: "ReaderSettings" },
);
const ReaderSettingsChange = t.Object(
  {
    mode: t.Optional(Nullable(Mode)),
    fit: t.Optional(Nullable(Fit)),
    spread: t.Optional(Nullable(Spread)),
    epubFont: t.Optional(Nullable(EpubFont)),
    epubSize: t.Optional(Nullable(EpubSize)),
    epubTheme: t.Optional(Nullable(EpubTheme)),
  },
  { additionalProperties: false, description: "Only the fields to change; null forgets one" },
);
const SeriesReaderSettings = Shape({ series: ReaderSettings, effective: ReaderSettings }, { $id: "SeriesReaderSettings" });

export function readerSettingsRoutes(services: Services) {
  const { readerSettings } = services;
  const tags = ["reader"];
  return new Elysia({ name: "reader-settings-routes", prefix: "/api/v1" })
    .use(authPlugin(services))
    .get("/reader-settings", ({ caller }) => readerSettings.defaults(caller.user), {
      auth: "user",
      response: answers({ 200: ReaderSettings }),
      detail: { summary: "The caller's default reader settings ({} when none)", tags },
    })
    .patch("/reader-settings", ({ caller, body }) => readerSettings.changeDefaults(caller.user, body), {
      auth: "user",
      body: ReaderSettingsChange,
      response: answers({ 200: ReaderSettings }),
      detail: { summary: "Change the caller's default reader settings", tags },
    })
    .get("/series/:id/reader-settings", ({ caller, params }) => readerSettings.forSeries(caller.user, params.id), {
      auth: "user",
      params: IdParams,
      response: answers({ 200: SeriesReaderSettings }, 404),
      detail: { summary: "The caller's reader settings for a series, and with the defaults under them", tags },
    })
    .patch("/series/:id/reader-settings", ({ caller, params, body }) => readerSettings.changeForSeries(caller.user, params.id, body), {
      auth: "user",
      params: IdParams,
      body: ReaderSettingsChange,
      response: answers({ 200: SeriesReaderSettings }, 404),
      detail: { summary: "Change the caller's reader settings for a series", tags },
    })
    .delete(
      "/series/:id/reader-settings",
      async ({ caller, params, set }) => {
        await readerSettings.clearForSeries(caller.user, params.id);
        set.status = 204;
      },
      { auth: "user", params: IdParams, response: answers({ 204: NoContent }, 404), detail: { summary: "Forget the caller's reader settings for a series", tags } },
    );
}
