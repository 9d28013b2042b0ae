/** Duplicate books across libraries: detection and the detected groups. */
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { authPlugin } from "../auth-plugin";
import { bookDtoFor } from "./book-dto";
import { answers, BookDtoSchema, DateTime, Integer, JobStateValue, Nullable, Shape } from "./schemas";

const DateTimeOrNull = Nullable(DateTime);
const DuplicateDetectionSchema = Shape({
  status: JobStateValue,
  requestedAt: DateTimeOrNull,
  startedAt: DateTimeOrNull,
  completedAt: DateTimeOrNull,
  failureReason: t.Union([t.String(), t.Null()]),
  hashGroups: t.Union([Integer(), t.Null()]),
  metadataGroups: t.Union([Integer(), t.Null()]),
});
const DuplicateGroupsSchema = Shape({
  groups: t.Array(Shape({ id: t.String(), kind: t.UnionEnum(["hash", "metadata"]), key: t.String(), books: t.Array(BookDtoSchema) })),
  totalGroups: Integer(),
  totalDuplicateBooks: Integer(),
});

export function duplicateRoutes(services: Services) {
  const duplicates = services.duplicates;
  return new Elysia({ name: "duplicate-routes", prefix: "/api/v1/duplicates" })
    .use(authPlugin(services))
    .post(
      "/scan",
      async ({ caller, set }) => {
        const detection = await duplicates.detect(caller.user);
        set.status = 202;
        return detection;
      },
      {
        auth: "user",
        response: answers({ 202: DuplicateDetectionSchema }),
        detail: {
          summary: "Queue a duplicate detection and wait up to 30 s for it; once completed, counts the groups the caller can see",
          tags: ["duplicates"],
        },
      },
    )
    .get("/scan", async ({ caller }) => duplicates.detection(caller.user), {
      auth: "user",
      response: answers({ 200: DuplicateDetectionSchema }),
      detail: { summary: "The latest duplicate detection's state", tags: ["duplicates"] },
    })
    .get(
      "",
      async ({ caller }) => {
        const groups = await duplicates.list(caller.user);
        const toDto = bookDtoFor(services.access, caller.user);
        return {
          groups: groups.map((group) => ({ id: group.id, kind: group.kind, key: group.key, books: group.books.map(toDto) })),
          totalGroups: groups.length,
          totalDuplicateBooks: groups.reduce((sum, group) => sum + group.books.length, 0),
        };
      },
      { auth: "user", response: answers({ 200: DuplicateGroupsSchema }), detail: { summary: "Detected duplicate groups", tags: ["duplicates"] } },
    );
}
