/** Request schemas shared by the HTTP slices. */
import { t } from "elysia";
import { READING_DIRECTIONS, SERIES_STRATEGIES } from "../library/libraries";

export const Uuid = t.String({ format: "uuid" });

/** `{id}` path parameters: a malformed id is a 400, an unknown one a 404 from the service. */
export const IdParams = t.Object({ id: Uuid });

export const ReadingDirectionSchema = t.Union(READING_DIRECTIONS.map((direction) => t.Literal(direction)));

export const SeriesStrategySchema = t.Union(SERIES_STRATEGIES.map((strategy) => t.Literal(strategy)));
