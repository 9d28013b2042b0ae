/**
 * TypeBox format checks for the request schemas. Importing @elysiajs/openapi evaluates the
 * @sinclair/typemap it bundles, which replaces TypeBox's `uuid` (and `email`, `url`, date...)
 * checks with valibot pipelines built anew on every call: about 8 us and some garbage per
 * check, on every request with an `{id}`. `uuid` is the only format our schemas use; this puts
 * back a plain check, the same one the repositories apply to ids (a UUID without `urn:uuid:`).
 * It must run after that import (src/http/openapi.ts calls it at load).
 */
import { FormatRegistry } from "@sinclair/typebox";
import { isUuid } from "../db";

export function useOwnFormatChecks(): void {
  FormatRegistry.Set("uuid", isUuid);
}
