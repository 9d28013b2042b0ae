/**
 * Admins edit a series' or a book's metadata: GET /series/:id/edit and /books/:id/edit show the
 * fields the REST PATCH routes accept, each checked against the same schema (SeriesEditBody,
 * BookEditBody) and changed through the same services, so an edited field is locked against
 * scans exactly as through the API. Only fields whose value changed are sent: saving the form
 * does not lock what was left alone. A locked field shows as locked with an Unlock button
 * (POST .../edit/unlock); the next scan that reads the file writes the file's value again.
 *
 * The cover: POST .../edit/cover uploads an image (multipart, read with the API's size limit and
 * judged by the cover service; it streams its own body, so its CSRF token travels in the header
 * htmx adds to every request), POST .../edit/cover/remove restores the default picture, and for
 * a book of images POST /books/:id/edit/cover/page makes one of its pages the cover.
 */
import { Elysia, t } from "elysia";
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { CoverOwner, UserRecord } from "../../../db";
import { DomainError } from "../../../errors";
import type { Services } from "../../../services";
import { BookEditBody } from "../../api/books";
import { uploadedFile } from "../../api/covers";
import { SeriesEditBody } from "../../api/series";
import { IdParams } from "../../params";
import { CsrfOnlyBody, inputProblem, noticeMessage, NoticeQuery } from "../forms";
import { redirectTo, type WebPageGuard } from "../page-guard";
import { page, type Viewer } from "../views";
import type { Translator } from "../../../i18n/translator";
import { DIRECTION_MESSAGES, STATUS_MESSAGES } from "./series";
import type { Author } from "../../../formats/contract";
import type { SeriesLink } from "../../../db/schema/types";

/**
 * How a field is typed: `list` is comma-separated values, `authors` a line per author
 * ("role: name"), `links` a line per link ("label https://..."); `status` and `direction` are
 * choices.
 */
type FieldKind = "text" | "textarea" | "integer" | "direction" | "status" | "list" | "authors" | "links";

export interface EditField {
  name: string;
  /** The message ids of the field's label, hint and refusal (the refusal else a sentence from the schema's bounds). */
  label: string;
  kind: FieldKind;
  hint?: string;
  problem?: string;
  /** A field that names or places one record (a name, a number): not offered when editing several at once. */
  perRecord?: true;
}

/** A field with its label, hint and refusal in the page's language. */
export const inLanguage = (field: EditField, { t }: Translator): EditField => ({
  ...field,
  label: t(field.label),
  hint: field.hint && t(field.hint),
  problem: field.problem && t(field.problem),
});

/** The fields of one kind of record's edit form, and the PATCH body schema that checks them. */
export interface EditForm {
  fields: readonly EditField[];
  schema: TObject;
}

/** Fields whose value is a list: blank means an empty list, not null. */
const LIST_KINDS: ReadonlySet<FieldKind> = new Set(["list", "authors", "links"]);

/** The form's text of a list field's value (see FieldKind). */
function listText(kind: FieldKind, value: readonly unknown[]): string {
  if (kind === "authors") return (value as Author[]).map((author) => `${author.role}: ${author.name}`).join("\n");
  if (kind === "links") return (value as SeriesLink[]).map((link) => `${link.label} ${link.url}`).join("\n");
  return (value as string[]).join(", ");
}

/** A list field's value from the form's text (see FieldKind); an author without a role is a writer. */
function parseList(kind: FieldKind, typed: string): unknown[] {
  if (kind === "list") return typed.split(",").map((item) => item.trim()).filter(Boolean);
  const lines = typed.split("\n").map((line) => line.trim()).filter(Boolean);
  if (kind === "authors") {
    return lines.map((line) => {
      const colon = line.indexOf(":");
      return colon < 0 ? { name: line, role: "writer" } : { role: line.slice(0, colon).trim().toLowerCase(), name: line.slice(colon + 1).trim() };
    });
  }
  return lines.map((line) => {
    const space = line.lastIndexOf(" ");
    const url = line.slice(space + 1);
    return { label: space < 0 ? url : line.slice(0, space).trim(), url };
  });
}

/** A series or a book as its edit page shows it: current values as the form's text. */
interface Editable {
  title: string;
  /** Where the record's own page is, and the breadcrumbs leading to it. */
  viewPath: string;
  crumbs: { href: string; label: string }[];
  values: Record<string, string>;
  lockedFields: string[];
  hasCustomCover: boolean;
  /** Pages that can stand as the cover (a book of images), else 0. */
  coverPages: number;
}

interface EditTarget extends EditForm {
  owner: CoverOwner;
  /** "/series" or "/books": the edit pages are at `${base}/:id/edit`. */
  base: string;
  load(user: UserRecord, id: string): Promise<Editable>;
  edit(user: UserRecord, id: string, change: Record<string, unknown>): Promise<unknown>;
  unlock(user: UserRecord, id: string, fields: string[]): Promise<unknown>;
}

const NOTICES: Record<string, string> = {
  saved: "metadataEdit.notice.saved",
  unlocked: "metadataEdit.notice.unlocked",
  "cover-saved": "metadataEdit.notice.coverSaved",
  "cover-restored": "metadataEdit.notice.coverRestored",
};

/** Pages used as a cover are read at this width at most: the cover service shrinks them further. */
const COVER_SOURCE_WIDTH = 1200;

/** Genres, tags and authors: a series' and a book's alike (the same schema in both PATCH bodies). */
const LIST_FIELDS: readonly EditField[] = [
  { name: "genres", label: "editSeries.genres.label", kind: "list", hint: "editSeries.genres.hint", problem: "editSeries.genres.problem" },
  { name: "tags", label: "editSeries.tags.label", kind: "list", hint: "editSeries.tags.hint", problem: "editSeries.tags.problem" },
  {
    name: "authors",
    label: "editSeries.authors.label",
    kind: "authors",
    hint: "editSeries.authors.hint",
    problem: "editSeries.authors.problem",
  },
];

const SERIES_FIELDS: readonly EditField[] = [
  { name: "name", label: "editSeries.name.label", kind: "text", perRecord: true },
  { name: "nameSort", label: "editSeries.nameSort.label", kind: "text", perRecord: true, hint: "editSeries.nameSort.hint" },
  { name: "summary", label: "editSeries.summary.label", kind: "textarea" },
  { name: "publisher", label: "editSeries.publisher.label", kind: "text" },
  { name: "year", label: "editSeries.year.label", kind: "integer" },
  { name: "readingDirection", label: "editSeries.readingDirection.label", kind: "direction", hint: "editSeries.readingDirection.hint" },
  { name: "status", label: "editSeries.status.label", kind: "status" },
  ...LIST_FIELDS,
  { name: "ageRating", label: "editSeries.ageRating.label", kind: "integer", hint: "editSeries.ageRating.hint" },
  { name: "language", label: "editSeries.language.label", kind: "text", hint: "editSeries.language.hint", problem: "editSeries.language.problem" },
  {
    name: "links",
    label: "editSeries.links.label",
    kind: "links",
    hint: "editSeries.links.hint",
    problem: "editSeries.links.problem",
  },
];

const BOOK_FIELDS: readonly EditField[] = [
  { name: "title", label: "editBook.title.label", kind: "text", perRecord: true },
  { name: "titleSort", label: "editBook.titleSort.label", kind: "text", perRecord: true },
  { name: "number", label: "editBook.number.label", kind: "integer", perRecord: true, hint: "editBook.number.hint" },
  { name: "volume", label: "editBook.volume.label", kind: "integer" },
  { name: "summary", label: "editBook.summary.label", kind: "textarea" },
  { name: "year", label: "editBook.year.label", kind: "integer", hint: "editBook.year.hint" },
  ...LIST_FIELDS,
];

/** The reading directions a "direction" field offers, with their labels. */
export const directionChoices = ({ t }: Translator) => Object.entries(DIRECTION_MESSAGES).map(([value, id]) => ({ value, label: t(id) }));

/** The statuses a "status" field offers (blank: not set), with their labels. */
export const statusChoices = ({ t }: Translator) => [{ value: "", label: t("status.notSet") }, ...Object.entries(STATUS_MESSAGES).map(([value, id]) => ({ value, label: t(id) }))];

/** The edit forms by the kind of record (the bulk edit of ./bulk.ts offers the same fields). */
export const EDIT_FORMS: Record<"series" | "books", EditForm> = {
  series: { fields: SERIES_FIELDS, schema: SeriesEditBody },
  books: { fields: BOOK_FIELDS, schema: BookEditBody },
};

const text = (value: string | number | null | undefined): string => (value === null || value === undefined ? "" : String(value));

/** A field's text as compared and sent: trimmed, with the line breaks a browser sends (CRLF) as LF. */
const normalised = (value: string): string => value.replace(/\r\n?/g, "\n").trim();

/**
 * The fields of a submitted form that are to change, as the PATCH body would carry them (blank:
 * null; a whole number: a number), and a sentence for each that the schema refuses. Fields the
 * form did not send, or that `changes` leaves out (given the typed text), are left out.
 */
export function formChange(target: EditForm, form: Record<string, string | undefined>, changes: (field: EditField, typed: string) => boolean, translator: Translator) {
  const change: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of target.fields) {
    const raw = form[field.name];
    if (raw === undefined) continue;
    const typed = normalised(raw);
    if (!changes(field, typed)) continue;
    const value = LIST_KINDS.has(field.kind)
      ? parseList(field.kind, typed)
      : typed === ""
        ? null
        : field.kind === "integer" && /^-?\d+$/.test(typed)
          ? Number(typed)
          : typed;
    const schema = target.schema.properties[field.name] as TSchema;
    // Elysia's integer schemas also pass strings of digits ("1e3", "+5"), which the services must never get.
    const valid = !(field.kind === "integer" && typeof value === "string") && Value.Check(schema, value);
    if (valid) change[field.name] = value;
    else errors[field.name] = value !== null && field.problem ? translator.t(field.problem) : problemWith(translator.t(field.label), schema, value, translator);
  }
  return { change, errors };
}

/** What is wrong with `value` for a field of this schema, as a sentence. */
function problemWith(label: string, schema: TSchema, value: unknown, { t }: Translator): string {
  const accepted = (schema.anyOf as TSchema[] | undefined)?.find((member) => member.type !== "null") ?? schema;
  if (value === null) return t("metadataEdit.problem.empty", { field: label });
  // Elysia's integers are unions themselves (a number, or a string of digits) carrying the bounds.
  if (accepted.minimum !== undefined) return t("metadataEdit.problem.range", { field: label, minimum: accepted.minimum, maximum: accepted.maximum });
  if (accepted.maxLength !== undefined) return t("metadataEdit.problem.tooLong", { field: label, limit: accepted.maxLength });
  return t("metadataEdit.problem.choice", { field: label });
}

function seriesTarget(services: Services): EditTarget {
  return {
    owner: "series",
    base: "/series",
    ...EDIT_FORMS.series,
    async load(user, id) {
      const series = await services.series.get(user, id);
      return {
        title: series.name,
        viewPath: `/series/${series.id}`,
        crumbs: [{ href: `/libraries/${series.libraryId}`, label: series.libraryName }],
        values: {
          name: series.name,
          nameSort: series.nameSort,
          summary: text(series.summary),
          publisher: text(series.publisher),
          year: text(series.year),
          readingDirection: series.readingDirection,
          status: text(series.status),
          genres: listText("list", series.genres),
          tags: listText("list", series.tags),
          authors: listText("authors", series.authors),
          ageRating: text(series.ageRating),
          language: text(series.language),
          links: listText("links", series.links),
        },
        lockedFields: series.lockedFields,
        hasCustomCover: series.customCoverPath !== null,
        coverPages: 0,
      };
    },
    edit: (user, id, change) => services.series.edit(user, id, change as Static<typeof SeriesEditBody>),
    unlock: (user, id, fields) => services.series.unlock(user, id, fields as (keyof Static<typeof SeriesEditBody>)[]),
  };
}

function bookTarget(services: Services): EditTarget {
  return {
    owner: "book",
    base: "/books",
    ...EDIT_FORMS.books,
    async load(user, id) {
      const book = await services.books.get(user, id);
      const images = await services.pages.imageOnly([book]);
      return {
        title: book.title,
        viewPath: `/books/${book.id}`,
        crumbs: [
          { href: `/libraries/${book.libraryId}`, label: book.libraryName },
          { href: `/series/${book.seriesId}`, label: book.seriesName },
        ],
        values: {
          title: book.title,
          titleSort: text(book.titleSort),
          number: text(book.number),
          volume: text(book.volume),
          summary: text(book.summary),
          year: text(book.year),
          genres: listText("list", book.metadata.genres ?? []),
          tags: listText("list", book.metadata.tags ?? []),
          authors: listText("authors", book.metadata.authors ?? []),
        },
        lockedFields: book.lockedFields,
        hasCustomCover: book.customCoverPath !== null,
        coverPages: images.has(book.id) ? book.pageCount : 0,
      };
    },
    edit: (user, id, change) => services.books.edit(user, id, change as Static<typeof BookEditBody>),
    unlock: (user, id, fields) => services.books.unlock(user, id, fields as (keyof Static<typeof BookEditBody>)[]),
  };
}

interface PageState {
  form?: Record<string, string | undefined>;
  errors?: Record<string, string>;
  error?: string;
  coverError?: string;
  notice?: string;
}

function editPage(viewer: Viewer, target: EditTarget, id: string, record: Editable, state: PageState = {}, status = 200): Response {
  const errors = state.errors ?? {};
  const firstError = target.fields.find((field) => errors[field.name])?.name;
  const fields = target.fields.map((field) => ({
    ...inLanguage(field, viewer.translator),
    value: state.form?.[field.name] ?? record.values[field.name] ?? "",
    locked: record.lockedFields.includes(field.name),
    error: errors[field.name],
    focus: field.name === firstError,
  }));
  return page(
    "pages/metadata-edit",
    {
      title: viewer.translator.t("metadataEdit.title", { title: record.title }),
      viewer,
      record,
      fields,
      action: `${target.base}/${id}/edit`,
      coverUrl: `/covers/${target.owner === "book" ? "books" : "series"}/${id}`,
      pageUrl: `/api/v1/books/${id}/pages/`,
      directions: directionChoices(viewer.translator),
      statuses: statusChoices(viewer.translator),
      error: state.error,
      coverError: state.coverError,
      notice: state.notice,
    },
    status,
  );
}

/** Back to the edit page after a change, saying what happened. */
const backToEdit = (request: Request, target: EditTarget, id: string, notice: string) => redirectTo(request, `${target.base}/${id}/edit?notice=${notice}`);


/** Problems with a cover that the person can fix by choosing another image or page. */
const COVER_PROBLEMS = new Set(["PayloadTooLarge", "NotFound"]);

/**
 * Runs a cover change, then back to the edit page. An image that is not one, too large, or a
 * page the book does not have is said beside the cover, nothing changed (a record that is gone
 * is a 404 when the page is loaded again).
 */
async function coverChange(viewer: Viewer, target: EditTarget, id: string, request: Request, change: () => Promise<void>, notice: string): Promise<Response> {
  try {
    await change();
  } catch (error) {
    const known = error instanceof DomainError && COVER_PROBLEMS.has(error.kind);
    const { t, size } = viewer.translator;
    const coverError = !known
      ? inputProblem(error, viewer.translator)
      : error.kind === "PayloadTooLarge"
        ? t("metadataEdit.coverTooLarge", { limit: size(Number(error.details?.limit ?? 0)) })
        : t("metadataEdit.coverPageMissing");
    return editPage(viewer, target, id, await target.load(viewer.user, id), { coverError }, known && error.kind === "PayloadTooLarge" ? 413 : 422);
  }
  return backToEdit(request, target, id, notice);
}

/** The routes of one kind of record's edit page. */
function editRoutes(services: Services, guard: WebPageGuard, target: EditTarget) {
  const editPath = `${target.base}/:id/edit`;
  const formBody = t.Object({
    ...Object.fromEntries(target.fields.map((field) => [field.name, t.Optional(t.String({ maxLength: 100_000 }))])),
    _csrf: t.Optional(t.String()),
  });

  return new Elysia({ name: `web-${target.owner}-edit` })
    .use(guard)
    .get(editPath, async ({ viewer, params, query }) => editPage(viewer, target, params.id, await target.load(viewer.user, params.id), { notice: noticeMessage(NOTICES, query.notice, viewer.translator) }), {
      page: "admin",
      params: IdParams,
      query: NoticeQuery,
    })
    .post(
      editPath,
      async ({ viewer, params, body, request }) => {
        const record = await target.load(viewer.user, params.id);
        const form = body as Record<string, string | undefined>;
        const { change, errors } = formChange(target, form, (field, typed) => typed !== normalised(record.values[field.name] ?? ""), viewer.translator);
        if (Object.keys(errors).length > 0) return editPage(viewer, target, params.id, record, { form, errors }, 422);
        if (Object.keys(change).length > 0) {
          try {
            await target.edit(viewer.user, params.id, change);
          } catch (error) {
            return editPage(viewer, target, params.id, record, { form, error: inputProblem(error, viewer.translator) }, 422);
          }
        }
        return backToEdit(request, target, params.id, "saved");
      },
      { page: "admin", params: IdParams, body: formBody },
    )
    .post(
      `${editPath}/unlock`,
      async ({ viewer, params, body, request }) => {
        if (!target.fields.some((field) => field.name === body.field)) throw new DomainError("BadRequest", `${body.field} is not a field that can be unlocked`);
        await target.unlock(viewer.user, params.id, [body.field]);
        return backToEdit(request, target, params.id, "unlocked");
      },
      { page: "admin", params: IdParams, body: t.Object({ field: t.String({ maxLength: 40 }), _csrf: t.Optional(t.String()) }) },
    )
    .post(
      `${editPath}/cover`,
      async ({ viewer, params, request }) =>
        coverChange(
          viewer,
          target,
          params.id,
          request,
          async () => services.covers.upload(viewer.user, target.owner, params.id, await uploadedFile(request, services.config.files.max_cover_upload_bytes)),
          "cover-saved",
        ),
      { page: "admin", params: IdParams, parse: "none" },
    )
    .post(
      `${editPath}/cover/remove`,
      async ({ viewer, params, request }) => coverChange(viewer, target, params.id, request, () => services.covers.remove(viewer.user, target.owner, params.id), "cover-restored"),
      { page: "admin", params: IdParams, body: CsrfOnlyBody },
    );
}

export function metadataEditPages(services: Services, guard: WebPageGuard) {
  const books = bookTarget(services);
  return new Elysia({ name: "web-metadata-edit" })
    .use(editRoutes(services, guard, seriesTarget(services)))
    .use(editRoutes(services, guard, books))
    .use(guard)
    .post(
      "/books/:id/edit/cover/page",
      async ({ viewer, params, body, request }) =>
        coverChange(
          viewer,
          books,
          params.id,
          request,
          async () => {
            const page = await services.pages.locate(viewer.user, params.id, body.page, COVER_SOURCE_WIDTH);
            await services.covers.upload(viewer.user, "book", params.id, (await services.pages.read(page)).bytes);
          },
          "cover-saved",
        ),
      { page: "admin", params: IdParams, body: t.Object({ page: t.Numeric({ minimum: 1, maximum: 1_000_000 }), _csrf: t.Optional(t.String()) }) },
    );
}
