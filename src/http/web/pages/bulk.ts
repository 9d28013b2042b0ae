/**
 * Acting on several series or books at once: the selection bar under the header of a grid of
 * covers (templates/partials/bulk-bar.eta) and the "Add to…" dialog, also offered on every
 * selectable cover (issues 32 and 33). `:kind` is `series` or `books`; the selection comes as
 * repeated `ids` fields.
 *
 * - POST /bulk/:kind/read-state (`read=true|false`): marks the selection's books read or unread.
 * - POST /bulk/:kind/analyze (admins): re-analyzes them.
 * - GET /bulk/:kind/add-to?ids=…, and POST without `list`: the dialog (a page without htmx)
 *   choosing a collection (series) or read list (books) the viewer may change, or a new one.
 * - POST /bulk/:kind/add-to with `list` (an id, or `new` with `name`): adds the selection.
 * - POST /bulk/:kind/edit (admins) without `apply`: the "Edit metadata" dialog, the fields of
 *   the edit page (./metadata-edit.ts) that suit several records; with `apply=true`, the ticked
 *   fields (`set`, repeated) get the values sent on every selected record, in one transaction.
 *
 * Every action goes through the services the REST routes use and checks the whole selection
 * first (../../../library/bulk-actions.ts, ../../../library/reading-lists.ts): an id that is
 * unknown or hidden from the viewer, an empty selection or a list they may not change refuse
 * the request and change nothing. htmx gets a notice for #flash and the changed covers out of
 * band; a plain form post gets a page with the notice and a link back.
 */
import { Elysia, t } from "elysia";
import type { ListKind } from "../../../db";
import { DomainError } from "../../../errors";
import { MAX_SELECTION, type SelectionKind } from "../../../library/bulk-actions";
import type { Services } from "../../../services";
import { statusOf } from "../../errors";
import { Uuid } from "../../params";
import { optionalText, describedProblem } from "../forms";
import { sameSitePath, type WebPageGuard } from "../page-guard";
import { htmlResponse, page, renderTemplate, wantsFragment, type Viewer } from "../views";
import { directionChoices, EDIT_FORMS, inLanguage, statusChoices, type EditField, type EditForm, formChange } from "./metadata-edit";
import type { Translator } from "../../../i18n/translator";

const KindParams = t.Object({ kind: t.Union([t.Literal("series"), t.Literal("books")]) });
/** One id comes as a string, several as a list; none at all is refused by the service ("nothing is selected"). */
const Ids = t.Optional(t.Union([Uuid, t.Array(Uuid, { maxItems: MAX_SELECTION })]));
const Csrf = { _csrf: t.Optional(t.String()) };

/** What each kind of selection is called, and the kind of list it is added to. */
const KINDS: Record<SelectionKind, { list: ListKind }> = {
  series: { list: "collection" },
  books: { list: "readlist" },
};

/** Lists offered in the dialog at most (the viewer's own and, for admins, the shared ones). */
const LISTS_OFFERED = 500;

const idsOf = (ids: string | string[] | undefined): string[] => (ids === undefined ? [] : Array.isArray(ids) ? ids : [ids]);
const counted = (count: number, kind: SelectionKind, { t }: Translator) => t("bulk.count", { kind, count });

/**
 * The page the request came from, for the "Back" link after a plain post: `back` when the form
 * carried it (the "Add to…" page names the page that opened it), else as htmx says or the
 * same-origin Referer; the start page when none names a page of this site.
 */
function returnPath(request: Request, back?: string): string {
  if (back !== undefined) return sameSitePath(back);
  const from = request.headers.get("hx-current-url") ?? request.headers.get("referer");
  if (!from || !URL.canParse(from)) return "/";
  const url = new URL(from);
  return url.origin === new URL(request.url).origin ? sameSitePath(url.pathname + url.search) : "/";
}

/**
 * What the person can fix in the dialog, said there: the list's name (blank, taken), a list
 * they may not change or that is gone. A selection naming what they cannot see is not: the
 * dialog was never shown for it.
 */
function isDialogProblem(error: unknown): error is DomainError {
  if (!(error instanceof DomainError)) return false;
  const fields = error.details?.fields as Record<string, string> | undefined;
  return ["Conflict", "Forbidden", "NotFound"].includes(error.kind) || fields?.name !== undefined;
}

/** The fields "Edit metadata" offers: the edit page's, but those that name or place one record. */
const BULK_EDIT_FORMS: Record<SelectionKind, EditForm> = {
  series: { ...EDIT_FORMS.series, fields: EDIT_FORMS.series.fields.filter((field) => !field.perRecord) },
  books: { ...EDIT_FORMS.books, fields: EDIT_FORMS.books.fields.filter((field) => !field.perRecord) },
};

/** The form fields "Edit metadata" sends: each field's value as text, the ticked ones in `set`. */
const bulkEditBody = (fields: readonly EditField[]) =>
  t.Object({
    ids: Ids,
    set: t.Optional(t.Union([t.String({ maxLength: 40 }), t.Array(t.String({ maxLength: 40 }), { maxItems: 100 })])),
    apply: t.Optional(t.Literal("true")),
    back: t.Optional(t.String({ maxLength: 2000 })),
    ...Object.fromEntries(fields.map((field) => [field.name, t.Optional(t.String({ maxLength: 100_000 }))])),
    ...Csrf,
  });

export function bulkPages(services: Services, guard: WebPageGuard) {
  /** What an action did: for htmx the notice (and the changed covers out of band), else a page saying it. */
  async function answer(request: Request, viewer: Viewer, outcome: { notice: string; problem?: string; kind: SelectionKind; changed?: string[]; back?: string }) {
    if (!wantsFragment(request)) return page("pages/bulk-result", { title: viewer.translator.t("bulk.done"), viewer, ...outcome, back: returnPath(request, outcome.back) });
    const rows = outcome.changed ? await services.bulkActions.named(viewer.user, outcome.kind, outcome.changed) : [];
    return htmlResponse(renderTemplate("partials/bulk-done", { viewer, ...outcome, rows }));
  }

  /** The "Add to…" dialog for the selection, with `problem` when the last try was refused. */
  async function addToDialog(request: Request, viewer: Viewer, kind: SelectionKind, ids: string[], problem?: string, status = 200, back?: string) {
    const selected = await services.bulkActions.named(viewer.user, kind, ids);
    const { rows } = await services.readingLists.list(viewer.user, KINDS[kind].list, {}, { offset: 0, limit: LISTS_OFFERED });
    const lists = rows.filter((list) => services.readingLists.canEdit(viewer.user, list));
    const data = { title: viewer.translator.t("bulk.addTo.title", { kind }), viewer, kind, names: KINDS[kind], ids: selected.map((item) => item.id), what: counted(selected.length, kind, viewer.translator), lists, problem };
    if (!wantsFragment(request)) return page("pages/bulk-add-to", { ...data, back: returnPath(request, back) }, status);
    // A refused try shows the dialog again in place of the one that was sent.
    const retarget: Record<string, string> = problem ? { "hx-retarget": "#bulk-dialog-slot", "hx-reswap": "innerHTML" } : {};
    return htmlResponse(renderTemplate("partials/bulk-add-to", data), status, retarget);
  }

  /** The "Edit metadata" dialog for the selection; after a refused try, with the values sent, the problems and `problem`. */
  async function editDialog(
    request: Request,
    viewer: Viewer,
    kind: SelectionKind,
    ids: string[],
    sent: { form?: Record<string, string | undefined>; ticked?: string[]; errors?: Record<string, string>; problem?: string; back?: string } = {},
    status = 200,
  ) {
    const selected = await services.bulkActions.named(viewer.user, kind, ids);
    const fields = BULK_EDIT_FORMS[kind].fields.map((field) => ({
      ...inLanguage(field, viewer.translator),
      value: sent.form?.[field.name] ?? "",
      set: sent.ticked?.includes(field.name) ?? false,
      error: sent.errors?.[field.name],
    }));
    const data = { title: viewer.translator.t("bulk.edit.title"), viewer, kind, ids: selected.map((item) => item.id), what: counted(selected.length, kind, viewer.translator), fields, directions: directionChoices(viewer.translator), statuses: statusChoices(viewer.translator), problem: sent.problem };
    if (!wantsFragment(request)) return page("pages/bulk-edit", { ...data, back: returnPath(request, sent.back) }, status);
    const retarget: Record<string, string> = sent.problem ? { "hx-retarget": "#bulk-dialog-slot", "hx-reswap": "innerHTML" } : {};
    return htmlResponse(renderTemplate("partials/bulk-edit", data), status, retarget);
  }

  return new Elysia({ name: "web-bulk-pages" })
    .use(guard)
    .post(
      "/bulk/:kind/read-state",
      async ({ viewer, params, body, request }) => {
        const ids = idsOf(body.ids);
        const read = body.read === "true";
        const marked = await services.bulkActions.markRead(viewer.user, params.kind, ids, read);
        const notice = viewer.translator.t(read ? "bulk.markedRead" : "bulk.markedUnread", { kind: params.kind, count: marked, seriesCount: new Set(ids).size });
        return answer(request, viewer, { notice, kind: params.kind, changed: ids });
      },
      { page: "reading", params: KindParams, body: t.Object({ ids: Ids, read: t.Union([t.Literal("true"), t.Literal("false")]), ...Csrf }) },
    )
    .post(
      "/bulk/:kind/analyze",
      async ({ viewer, params, body, request }) => {
        const { done, failed } = await services.bulkActions.reanalyze(viewer.user, params.kind, idsOf(body.ids));
        const { t } = viewer.translator;
        // Each book's own problem is the analysis error as it was recorded (English, like the API's).
        const unread = failed.map((book) => `${book.title} (${book.message})`).join("; ");
        const problem = failed.length > 0 ? t("bulk.analyzeFailed", { count: failed.length, books: unread }) : undefined;
        return answer(request, viewer, { notice: t("bulk.analyzed", { count: done }), problem, kind: params.kind });
      },
      { page: "admin", params: KindParams, body: t.Object({ ids: Ids, ...Csrf }) },
    )
    .post(
      "/bulk/:kind/edit",
      async ({ viewer, params, body, request }) => {
        const ids = idsOf(body.ids);
        const form = body as Record<string, string | undefined>;
        if (body.apply === undefined) return editDialog(request, viewer, params.kind, ids);
        const ticked = idsOf(body.set);
        const target = BULK_EDIT_FORMS[params.kind];
        const { t, list } = viewer.translator;
        const { change, errors } = formChange(target, form, (field) => ticked.includes(field.name), viewer.translator);
        const changed = target.fields.filter((field) => field.name in change).map((field) => t(field.label));
        if (Object.keys(errors).length > 0 || changed.length === 0) {
          const problem = changed.length === 0 && Object.keys(errors).length === 0 ? t("bulk.edit.nothingTicked") : Object.values(errors).join(" ");
          return editDialog(request, viewer, params.kind, ids, { form, ticked, errors, problem, back: body.back }, 422);
        }
        const count = await services.bulkActions.editMetadata(viewer.user, params.kind, ids, change);
        const notice = t("bulk.edit.done", { fields: list(changed), what: counted(count, params.kind, viewer.translator), count: changed.length });
        return answer(request, viewer, { notice, kind: params.kind, changed: ids, back: body.back });
      },
      { page: "admin", params: KindParams, body: bulkEditBody(Object.values(BULK_EDIT_FORMS).flatMap((form) => form.fields)) },
    )
    .get("/bulk/:kind/add-to", ({ viewer, params, query, request }) => addToDialog(request, viewer, params.kind, idsOf(query.ids)), {
      page: "user",
      params: KindParams,
      query: t.Object({ ids: Ids }),
    })
    .post(
      "/bulk/:kind/add-to",
      async ({ viewer, params, body, request }) => {
        const ids = idsOf(body.ids);
        const names = KINDS[params.kind];
        if (body.list === undefined) return addToDialog(request, viewer, params.kind, ids);
        // Refused as every action refuses it (nothing selected, or what the viewer cannot see), before a new list is made.
        await services.bulkActions.named(viewer.user, params.kind, ids);
        let list;
        try {
          list =
            body.list === "new"
              ? await services.readingLists.create(viewer.user, names.list, { name: optionalText(body.name) ?? "", itemIds: ids })
              : await services.readingLists.addItems(viewer.user, names.list, body.list, ids);
        } catch (error) {
          if (!isDialogProblem(error)) throw error;
          return addToDialog(request, viewer, params.kind, ids, describedProblem(error, viewer.translator).message, statusOf(error.kind), body.back);
        }
        return answer(request, viewer, { notice: viewer.translator.t("bulk.added", { kind: params.kind, count: new Set(ids).size, name: list.name }), kind: params.kind, back: body.back });
      },
      {
        page: "user",
        params: KindParams,
        body: t.Object({
          ids: Ids,
          list: t.Optional(t.Union([t.Literal("new"), Uuid])),
          name: t.Optional(t.String({ maxLength: 200 })),
          back: t.Optional(t.String({ maxLength: 2000 })),
          ...Csrf,
        }),
      },
    );
}
