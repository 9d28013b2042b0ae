/** What a form page needs beside rendering: telling a person what was wrong with their input. */
import { t } from "elysia";
import { DomainError } from "../../errors";

const INPUT_PROBLEMS = new Set(["BadRequest", "UnprocessableEntity", "Conflict"]);

/**
 * The message of an error the person can fix by changing the form (invalid or conflicting
 * input), to show beside the form; any other error is thrown on to the error page.
 */
export function inputProblem(error: unknown): string {
  if (error instanceof DomainError && INPUT_PROBLEMS.has(error.kind)) return error.message;
  throw error;
}

/** An optional text field: blank means absent. */
export const optionalText = (value: string | undefined): string | null => (value?.trim() ? value.trim() : null);

/** The body of a form that sends nothing but its CSRF field (a button: delete, revoke, sign out). */
export const CsrfOnlyBody = t.Optional(t.Object({ _csrf: t.Optional(t.String()) }));

/** `?notice=` names a message a page shows after a redirect (each page has its own list). */
export const NoticeQuery = t.Object({ notice: t.Optional(t.String({ maxLength: 40 })) });

/** An input problem as a form shows it: the whole message, and a sentence per field it names. */
export interface FormProblem {
  message: string;
  fields: Record<string, string>;
}

/** How a service's short field problems read in a sentence. */
const PROBLEM_WORDING: Record<string, string> = { taken: "is already in use" };

/**
 * inputProblem with the fields the service named (`details.fields`) said in a sentence each,
 * under the form's own labels: `{ path: "does not exist" }` with `{ path: "The folder" }` is
 * "The folder does not exist." The message is those sentences, or the service's own when it
 * names a field the form does not show.
 */
export function formProblem(error: unknown, labels: Record<string, string>): FormProblem {
  const message = inputProblem(error);
  const named = error instanceof DomainError ? (error.details?.fields as Record<string, string> | undefined) : undefined;
  const fields: Record<string, string> = {};
  for (const [field, label] of Object.entries(labels)) {
    const problem = named?.[field];
    if (problem) fields[field] = `${label} ${PROBLEM_WORDING[problem] ?? problem}.`;
  }
  const allSaid = named !== undefined && Object.keys(named).every((field) => field in fields);
  return { message: allSaid ? Object.values(fields).join(" ") : message, fields };
}
