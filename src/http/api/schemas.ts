/**
 * The answers of /api/v1 as TypeBox schemas: the routes declare them as their `response`, Elysia
 * checks what they return against them, and the OpenAPI document is generated from them
 * (src/http/openapi.ts). A schema with a `$id` becomes a named component of the document.
 *
 * Adding a field to an answer: add it here (or in the route's own schema next to the route). The
 * tests validate every answer against the document with undeclared fields refused, so a field
 * returned but not declared fails the test that received it, naming the operation and field.
 *
 * Every object is `Shape`: `additionalProperties: true`, so clients reading the published
 * document accept fields added later, and Elysia passes fields through instead of trimming them.
 * Free-form maps are `t.Record` (the tests' strict check leaves them open).
 */
import { Type, type TObject, type TProperties, type TSchema } from "@sinclair/typebox";
import { t } from "elysia";
import { READING_DIRECTIONS, SERIES_STRATEGIES } from "../../library/libraries";
import { SERIES_STATUSES } from "../../db/schema/types";
import { ApiKeyScopeSchema } from "../params";

/** An object of an answer: declared fields, more allowed (see the module comment). */
export const Shape = <P extends TProperties>(properties: P, options: { $id?: string; description?: string } = {}): TObject<P> =>
  t.Object(properties, { additionalProperties: true, ...options });

/**
 * A JSON integer. Elysia's `t.Integer` also takes numeric text (it is made for query strings),
 * which an answer never is.
 */
export const Integer = (options?: { description?: string; minimum?: number }) => Type.Integer(options);

export const Nullable = <S extends TSchema>(schema: S) => t.Union([schema, t.Null()]);
export const DateTime = t.String({ format: "date-time" });
export const Id = t.String({ format: "uuid" });

/** The contract's error body; every error status answers it. */
export const ErrorBodySchema = Shape(
  {
    error: t.String({ description: "A code such as NotFound, or a more specific one (EmailNotVerified)" }),
    message: t.String(),
    details: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { $id: "ErrorBody" },
);

/** The spec's PaginatedResponse<T>, one component per item type: `PaginatedResponse_BookDto`. */
export function Paginated<S extends TSchema & { $id?: string }>(item: S) {
  return Shape(
    {
      data: t.Array(item),
      links: Shape({ first: t.String(), last: t.String(), self: t.String(), next: Nullable(t.String()), prev: Nullable(t.String()) }),
      page: Integer(),
      pageSize: Integer(),
      total: Integer(),
      totalPages: Integer(),
    },
    { $id: `PaginatedResponse_${item.$id}` },
  );
}

/** An answer with no body (204, 202 without content). */
export const NoContent = t.Void({ description: "No content" });

/**
 * A route's `response`: its success answers and the error statuses it may give beyond the ones
 * the document adds from the route itself (400 with parameters or a body, 401 and 403 with
 * credentials; see src/http/openapi.ts).
 */
export function answers<S extends Record<number, TSchema>>(success: S, ...errors: number[]) {
  return { ...success, ...Object.fromEntries(errors.map((status) => [status, ErrorBodySchema])) } as S;
}

/** The state of a scan or of a duplicate detection. */
export const JobStateValue = t.UnionEnum(["idle", "pending", "running", "completed", "failed", "cancelled"]);

export const ReadingDirectionValue = t.UnionEnum(READING_DIRECTIONS);
const ScanModeValue = t.UnionEnum(["normal", "deep"]);

export const UserDtoSchema = Shape(
  {
    id: Id,
    username: t.String(),
    email: Nullable(t.String()),
    role: t.UnionEnum(["admin", "user"]),
    emailVerified: t.Boolean(),
    disabled: t.Boolean(),
    locale: Nullable(t.String({ description: "The web interface's and the emails' language (a locale with a catalog, such as en or pt-BR); null follows the browser's Accept-Language, else the server's default" })),
    createdAt: DateTime,
  },
  { $id: "UserDto" },
);

export const LoginResultSchema = Shape(
  {
    token: t.String(),
    expires_at: DateTime,
    refresh_token: t.Optional(t.String()),
    refresh_token_expires_at: t.Optional(DateTime),
    token_type: t.Literal("Bearer"),
    user: UserDtoSchema,
  },
  { $id: "LoginResult" },
);

export const ApiKeyDtoSchema = Shape(
  {
    id: Id,
    name: t.String(),
    keyPrefix: t.String(),
    scope: ApiKeyScopeSchema,
    createdAt: DateTime,
    expiresAt: Nullable(DateTime),
    lastUsedAt: Nullable(DateTime),
  },
  { $id: "ApiKeyDto" },
);

const ReadiumLocatorSchema = Shape(
  {
    href: t.String(),
    type: t.Optional(t.String()),
    title: t.Optional(t.String()),
    locations: t.Optional(t.Record(t.String(), t.Unknown())),
    text: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { $id: "ReadiumLocator" },
);

export const ReadProgressDtoSchema = Shape(
  {
    page: Integer(),
    completed: t.Boolean(),
    percentage: t.Number(),
    progression: Nullable(t.Number()),
    locator: Nullable(ReadiumLocatorSchema),
    device: Nullable(t.String()),
    updatedAt: DateTime,
  },
  { $id: "ReadProgressDto" },
);

export const BookDtoSchema = Shape(
  {
    id: Id,
    libraryId: Id,
    libraryName: t.String(),
    seriesId: Id,
    seriesName: t.String(),
    title: t.String(),
    titleSort: Nullable(t.String()),
    number: Nullable(Integer()),
    numberSort: Nullable(t.Number()),
    seriesPosition: Nullable(Integer({ description: "The book's place in its series' order (1, 2, ...); null for a deleted book" })),
    volume: Nullable(Integer()),
    year: Nullable(Integer()),
    summary: Nullable(t.String()),
    authors: t.Array(Shape({ name: t.String(), role: t.String() })),
    fileFormat: t.String(),
    fileHash: t.String(),
    filePath: t.Optional(t.String({ description: "Admins only" })),
    fileSize: Integer(),
    pageCount: Integer(),
    analyzed: t.Boolean(),
    analysisError: Nullable(t.String()),
    deleted: t.Boolean(),
    readProgress: Nullable(ReadProgressDtoSchema),
    readingDirection: Nullable(ReadingDirectionValue),
    lockedFields: t.Array(t.String(), { description: "Fields an admin edited: scans keep them until unlocked" }),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: "BookDto" },
);

export const SeriesStatusValue = t.UnionEnum(SERIES_STATUSES);
export const SeriesLinkShape = Shape({ label: t.String(), url: t.String({ description: "http or https" }) });
export const AuthorShape = Shape({ name: t.String(), role: t.String() });

export const SeriesDtoSchema = Shape(
  {
    id: Id,
    libraryId: Id,
    libraryName: t.String(),
    name: t.String(),
    nameSort: t.String(),
    summary: Nullable(t.String()),
    publisher: Nullable(t.String()),
    year: Nullable(Integer()),
    readingDirection: ReadingDirectionValue,
    genres: t.Array(t.String()),
    tags: t.Array(t.String()),
    authors: t.Array(AuthorShape, { description: "Of all its books, or as an admin set them" }),
    ageRating: Nullable(Integer({ description: "The youngest age the series is meant for: its highest book's, or an admin's" })),
    language: Nullable(t.String()),
    status: Nullable(SeriesStatusValue),
    links: t.Array(SeriesLinkShape),
    bookCount: Integer(),
    booksReadCount: Integer(),
    booksInProgressCount: Integer(),
    booksUnreadCount: Integer(),
    lockedFields: t.Array(t.String()),
    hasCustomCover: t.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: "SeriesDto" },
);

export const LibraryDtoSchema = Shape(
  {
    id: Id,
    name: t.String(),
    path: t.Optional(t.String({ description: "Admins only" })),
    defaultReadingDirection: ReadingDirectionValue,
    seriesStrategy: t.UnionEnum(SERIES_STRATEGIES),
    scanningConfig: Shape({
      enabled: t.Boolean(),
      cronSchedule: Nullable(t.String()),
      defaultMode: ScanModeValue,
      scanOnStart: t.Boolean(),
      watch: t.Optional(t.Boolean()),
      pollSeconds: t.Optional(Nullable(Integer())),
    }),
    seriesCount: Integer(),
    bookCount: Integer(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: "LibraryDto" },
);

const ScanCounter = (description?: string) => t.Optional(Integer({ description: description ?? "Admins only" }));

/** A library's latest scan; users who are not admins get its state and times only. */
export const ScanStatusSchema = Shape(
  {
    scanId: Nullable(Id),
    libraryId: Id,
    mode: Nullable(ScanModeValue),
    status: JobStateValue,
    trigger: Nullable(t.UnionEnum(["manual", "schedule", "startup", "watch"])),
    requestedAt: Nullable(DateTime),
    startedAt: Nullable(DateTime),
    completedAt: Nullable(DateTime),
    failureReason: t.Optional(Nullable(t.String({ description: "Admins only" }))),
    thumbnailsPending: ScanCounter(),
    filesDiscovered: ScanCounter(),
    filesProcessed: ScanCounter(),
    seriesCreated: ScanCounter(),
    seriesRenamed: ScanCounter(),
    booksAdded: ScanCounter(),
    booksUpdated: ScanCounter(),
    booksDeleted: ScanCounter(),
    booksRestored: ScanCounter(),
    booksMoved: ScanCounter(),
    errors: ScanCounter(),
    pathsSkipped: ScanCounter(),
    linksOutside: ScanCounter(),
    removalsHeld: ScanCounter(),
  },
  { $id: "ScanStatus" },
);

export const BookErrorDtoSchema = Shape(
  { errorType: t.String(), message: t.String(), occurredAt: DateTime, details: t.Optional(t.Record(t.String(), t.Unknown())) },
  { $id: "BookErrorDto" },
);

const BookWithErrorsSchema = Shape({ book: BookDtoSchema, errors: t.Array(BookErrorDtoSchema) }, { $id: "BookWithErrors" });

export const ErrorGroupDtoSchema = Shape(
  { errorType: t.String(), label: t.String(), count: Integer(), books: Paginated(BookWithErrorsSchema) },
  { $id: "ErrorGroupDto" },
);

export const SharingTagDtoSchema = Shape(
  {
    id: Id,
    name: t.String(),
    description: Nullable(t.String()),
    seriesCount: Integer(),
    userCount: Integer(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: "SharingTagDto" },
);

/** One answer that is a file, an image, a stream or a redirect, for `documentedAnswers`. */
export const mediaAnswer = (description: string, mediaTypes: Record<string, TSchema | { type: string; format?: string }> = {}) => ({
  description,
  ...(Object.keys(mediaTypes).length && { content: Object.fromEntries(Object.entries(mediaTypes).map(([type, schema]) => [type, { schema }])) }),
});

/** Bytes of any of these media types. */
export const bytesOf = (...mediaTypes: string[]) => Object.fromEntries(mediaTypes.map((type) => [type, { type: "string", format: "binary" }]));

/**
 * The answers of a route that returns a Response of its own (files, streams, redirects), which
 * Elysia does not check: they go to the document only, as the route's `detail.responses`.
 */
export function documentedAnswers(success: Record<number, ReturnType<typeof mediaAnswer>>, ...errors: number[]) {
  return {
    ...success,
    ...Object.fromEntries(errors.map((status) => [status, mediaAnswer("Error", { "application/json": ErrorBodySchema })])),
  };
}

/** A collection or read list (issue 33); `seriesCount` for a collection, `bookCount` for a read list. */
const readingListDto = (id: "CollectionDto" | "ReadListDto", countField: "seriesCount" | "bookCount") =>
  Shape(
    {
      id: Id,
      name: t.String(),
      summary: Nullable(t.String()),
      ordered: t.Boolean(),
      shared: t.Boolean({ description: "Made by an admin for everyone; else the caller's own" }),
      editable: t.Boolean({ description: "Whether the caller may change it" }),
      [countField]: Integer({ description: "Items the caller may see" }),
      createdAt: DateTime,
      updatedAt: DateTime,
    },
    { $id: id },
  );
export const CollectionDtoSchema = readingListDto("CollectionDto", "seriesCount");
export const ReadListDtoSchema = readingListDto("ReadListDto", "bookCount");

/** What a .cbl import made, and the entries that matched no book the caller may see. */
export const ReadListImportSchema = Shape(
  {
    readList: ReadListDtoSchema,
    unmatched: t.Array(
      Shape({
        series: t.String(),
        number: t.String(),
        volume: Nullable(t.String()),
        year: Nullable(t.String()),
        reason: t.UnionEnum(["no such series", "no such number", "repeated"]),
      }),
    ),
  },
  { $id: "ReadListImport" },
);
