/**
 * TypeBox format checks for the request schemas. Importing @elysiajs/openapi evaluates the
 * @sinclair/typemap it bundles, which replaces TypeBox's `uuid` (and `email`, `url`, date...)
 * checks with valibot pipelines built anew on every call: about 8 us and some garbage per
 * check, on every request with an `{id}`. `uuid` (requests and answers) and `date-time` (answers,
 * src/http/api/schemas.ts) are the formats our schemas use; this puts back plain checks: for ids
 * the one the repositories apply (a UUID without `urn:uuid:`), for times RFC 3339's shape.
 * It must run after that import (src/http/openapi.ts calls it at load).
 */
import { FormatRegistry } from "@sinclair/typebox";
import { isUuid } from "../db";

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export function useOwnFormatChecks(): void {
  FormatRegistry.Set("uuid", isUuid);
  FormatRegistry.Set("date-time", (value) => DATE_TIME.test(value));
}
