/** What a form page needs beside rendering: telling a person what was wrong with their input. */
import { t } from "elysia";
import { DomainError } from "../../errors";
import { hasMessage } from "../../i18n/catalogs";
import type { Translator } from "../../i18n/translator";

const INPUT_PROBLEMS = new Set(["BadRequest", "UnprocessableEntity", "Conflict"]);

/**
 * The message of an error the person can fix by changing the form (invalid or conflicting
 * input), to show beside the form, in their language; any other error is thrown on to the error
 * page. See formProblem: the API's English message is never shown.
 */
export function inputProblem(error: unknown, translator: Translator): string {
  return formProblem(error, translator).message;
}

/** An optional text field: blank means absent. */
export const optionalText = (value: string | undefined): string | null => (value?.trim() ? value.trim() : null);

/** The body of a form that sends nothing but its CSRF field (a button: delete, revoke, sign out). */
export const CsrfOnlyBody = t.Optional(t.Object({ _csrf: t.Optional(t.String()) }));

/** `?notice=` names a message a page shows after a redirect (each page has its own list). */
export const NoticeQuery = t.Object({ notice: t.Optional(t.String({ maxLength: 40 })) });

/** The notice `?notice=` names, in the page's language: `notices` maps each name to its message id. */
export function noticeMessage(notices: Record<string, string>, notice: string | undefined, { t }: Translator): string | undefined {
  const id = notice === undefined ? undefined : notices[notice];
  return id && t(id);
}

/** An input problem as a form shows it: the whole message, and a sentence per field it names. */
export interface FormProblem {
  message: string;
  fields: Record<string, string>;
}

/**
 * The services' short field problems (`details.fields`) that have their own sentence
 * (`fieldProblem.<id>` in the catalogs, with the field's label as `{field}`); any other reads
 * "{field} is not valid."
 */
const FIELD_PROBLEMS: Record<string, string> = {
  taken: "taken",
  "looks like an existing username": "confusable",
  "does not exist": "missing",
  "is not a directory": "notFolder",
  "must be an image": "notImage",
  "must be a readable image": "notImage",
  "is required": "required",
  "not a ComicRack reading list": "notReadingList",
  "matches no book": "matchesNoBook",
  "must be an email address": "notEmail",
  "must be an absolute path": "notAbsolute",
  "is not a readable folder": "notFolder",
  "must not be blank": "required",
  empty: "empty",
  "too many": "tooMany",
  "unknown ids": "unknownIds",
};

/** Problems with a value of their own ("overlaps /comics", "must be at most 200 characters"): the number is `{limit}`. */
const FIELD_PROBLEM_PATTERNS: [RegExp, string][] = [
  [/^overlaps /, "overlaps"],
  [/^must be at least (\d+) characters/, "tooShort"],
  [/^must be at most (\d+) characters/, "tooLong"],
];

function fieldProblemMessage(problem: string): { id: string; limit: number } {
  const known = FIELD_PROBLEMS[problem];
  if (known) return { id: known, limit: 0 };
  for (const [pattern, id] of FIELD_PROBLEM_PATTERNS) {
    const match = pattern.exec(problem);
    if (match) return { id, limit: Number(match[1] ?? 0) };
  }
  return { id: "invalid", limit: 0 };
}

/**
 * The error's fields (`details.fields`), each said in a sentence under the form's label of the
 * field (`field.<name>` in the catalogs: "The folder on the server does not exist."). The
 * message is those sentences, or when the error names no field the catalog has a label for,
 * the sentence of the API's error code (`apiError.<code>`): the web interface never shows the
 * API's English message (it is for programs).
 */
export function formProblem(error: unknown, translator: Translator): FormProblem {
  if (!(error instanceof DomainError) || !INPUT_PROBLEMS.has(error.kind)) throw error;
  return describedProblem(error, translator);
}

/** Any domain error in the interface's words, as formProblem says an input problem. */
export function describedProblem(error: DomainError, translator: Translator): FormProblem {
  return problemOfAnswer(error.code ?? error.kind, error.details?.fields as Record<string, string> | undefined, translator, error.kind);
}

/**
 * An error answer's code and `details.fields` in the interface's words (forms, and the error
 * pages of ./error-pages.ts): a sentence per field the catalogs have a label for, else the
 * code's sentence (`apiError.<code>`, else `fallbackCode`'s).
 */
export function problemOfAnswer(code: string, named: Record<string, string> = {}, translator: Translator, fallbackCode = "BadRequest"): FormProblem {
  const fields: Record<string, string> = {};
  for (const [field, problem] of Object.entries(named)) {
    if (!hasMessage(`field.${field}`)) continue;
    const { id, limit } = fieldProblemMessage(problem);
    fields[field] = translator.t(`fieldProblem.${id}`, { field: translator.t(`field.${field}`), limit });
  }
  const message = Object.keys(fields).length > 0 ? Object.values(fields).join(" ") : translator.t(`apiError.${hasMessage(`apiError.${code}`) ? code : fallbackCode}`);
  return { message, fields };
}
