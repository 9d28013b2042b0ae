/**
 * The contract's `sort=field,asc|desc` query parameter. Fields are the ones a list offers;
 * anything else is a 400 that names the allowed fields.
 */
import { t } from "elysia";
import { invalidFields } from "../errors";

export const sortQuery = t.Object({ sort: t.Optional(t.String({ maxLength: 100 })) });

export interface SortOrder<Field extends string> {
  field: Field;
  direction: "asc" | "desc";
}

export function parseSort<Field extends string>(value: string | undefined, fields: readonly Field[]): SortOrder<Field> | undefined {
  if (value === undefined) return undefined;
  const [field, direction = "asc", ...rest] = value.split(",").map((part) => part.trim());
  if (!fields.includes(field as Field) || (direction !== "asc" && direction !== "desc") || rest.length > 0) {
    throw invalidFields("BadRequest", { sort: `must be field,asc|desc with field one of ${fields.join(", ")}` });
  }
  return { field: field as Field, direction };
}
