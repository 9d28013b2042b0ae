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
