/**
 * The pictures that stand for books and series. A cover uploaded by an admin wins; otherwise a
 * book shows its generated thumbnail (made on demand when the queue has not got to it yet: from
 * its cover image, else its first page) and a series shows its first book's that has one. A
 * book or series with nothing readable shows an image of its title, so a visible one never
 * answers 404 where a client expects an image. Uploaded covers are decoded and re-encoded (which drops
 * their metadata and anything that is not pixels) at the thumbnail size, and kept in the cover
 * store (files.cover_dir, or covers/ in the bucket) as <books|series>/<id>.<ext>: apart from
 * thumbnails, which can be regenerated and are cleaned up, while covers cannot.
 */
import type { BunFile } from "bun";
import sharp from "sharp";
import type { BookView, CoverOwner, Repositories } from "../db";
import { DomainError } from "../errors";
import { extensionOf, PAGE_IMAGE_TYPES } from "../formats/images";
import { toBookAnalysisError } from "../formats/registry";
import { placeholderImage } from "../formats/placeholder";
import { makeThumbnail } from "../formats/resize";
import type { FileStore } from "../storage/file-store";
import { removeUnreferencedFiles, type Removal } from "./orphan-files";
import type { BookService, Caller } from "./books";
import type { SeriesService } from "./series";
import type { ThumbnailQueue } from "./thumbnails";

export interface CoverSettings {
  covers: FileStore;
  thumbnails: FileStore;
  format: "webp" | "jpeg";
  height: number;
  maxUploadBytes: number;
  maxPixels: number;
}

/** An image file to send. */
export interface ImageFile {
  mediaType: string;
  /** A strong validator of this version of the image (the ETag's value). */
  version: string;
  /** The bytes to send, read only when they are sent: a 304 reads nothing. */
  body(): BunFile | Promise<Uint8Array>;
}

/** A series takes its picture from the first of its books that has one, among this many. */
const SERIES_COVER_CANDIDATES = 50;

/** What sharp reads that makes sense as a cover (no SVG: it is a document, not pixels). */
const ACCEPTED_FORMATS = new Set(["jpeg", "png", "webp", "gif", "avif", "heif", "tiff"]);

export class CoverService {
  constructor(
    private readonly repositories: Repositories,
    private readonly books: BookService,
    private readonly series: SeriesService,
    private readonly thumbnails: ThumbnailQueue,
    private readonly settings: CoverSettings,
  ) {}

  /** The picture of a book or a series, for every slice that shows one (404 when none can be made). */
  thumbnail(caller: Caller, owner: CoverOwner, id: string): Promise<ImageFile> {
    return owner === "book" ? this.bookThumbnail(caller, id) : this.seriesThumbnail(caller, id);
  }

  /** The book's own picture, else an image of its title: a visible book always has one. */
  private async bookThumbnail(caller: Caller, bookId: string): Promise<ImageFile> {
    const book = await this.books.get(caller, bookId);
    return (await this.ownImage(book)) ?? this.titleImage(book.title);
  }

  /**
   * An uploaded cover, else the stored thumbnail, else one made now (from the cover image, else
   * the first page); undefined when the book has nothing readable to make one from.
   */
  private async ownImage(book: Pick<BookView, "id" | "customCoverPath" | "thumbnailPath" | "coverPage">): Promise<ImageFile | undefined> {
    const existing =
      (book.customCoverPath ? await imageFile(this.settings.covers, book.customCoverPath) : undefined) ??
      (book.thumbnailPath ? await imageFile(this.settings.thumbnails, book.thumbnailPath) : undefined);
    if (existing) return existing;
    // A book without pages has nothing to make one from (its analysis error says why): no
    // database call for it, which a series trying its first books one by one would make for each.
    if (book.coverPage === null) return undefined;
    const made = await this.thumbnails.generate(book.id);
    return made ? await imageFile(this.settings.thumbnails, made) : undefined;
  }

  /**
   * An uploaded cover, else the picture of its first book that has one (books whose pictures
   * cannot be made are remembered, so they are tried once), else an image of its name.
   */
  private async seriesThumbnail(caller: Caller, seriesId: string): Promise<ImageFile> {
    const series = await this.series.get(caller, seriesId);
    const uploaded = series.customCoverPath ? await imageFile(this.settings.covers, series.customCoverPath) : undefined;
    if (uploaded) return uploaded;
    const bookIds = await this.series.orderedBookIds(series.id, SERIES_COVER_CANDIDATES);
    // The series is visible to the caller, and so are its books.
    for (const book of await this.repositories.books.named({ ids: bookIds }, caller.id)) {
      const image = await this.ownImage(book);
      if (image) return image;
    }
    return this.titleImage(series.name);
  }

  /** A drawn image of `title` at the thumbnail size, drawn only when sent; its version names the text and the size. */
  private titleImage(title: string): ImageFile {
    const { height, format } = this.settings;
    const version = `title-${new Bun.CryptoHasher("sha256").update(`${format}:${height}:${title}`).digest("hex").slice(0, 32)}`;
    return {
      mediaType: PAGE_IMAGE_TYPES[format === "webp" ? "webp" : "jpg"]!,
      version,
      body: async () => (await placeholderImage(title, { width: Math.round((height * 2) / 3), height, format })).bytes,
    };
  }

  /** Stores an uploaded cover (admin): 413 over the size limit, 400 when it is not an image. */
  async upload(caller: Caller, owner: CoverOwner, id: string, image: Uint8Array): Promise<void> {
    await this.assertVisible(caller, owner, id);
    if (image.length > this.settings.maxUploadBytes) throw coverTooLarge(this.settings.maxUploadBytes);
    const encoded = await this.reencode(image);
    const extension = this.settings.format === "webp" ? "webp" : "jpg";
    const stored = `${owner === "book" ? "books" : "series"}/${id}.${extension}`;
    await this.settings.covers.write(stored, encoded, PAGE_IMAGE_TYPES[extension]!);
    const previous = await this.repositories.edits.setCover(owner, id, stored);
    if (previous && previous !== stored) await this.settings.covers.remove(previous);
  }

  /** Removes the uploaded cover (admin); the generated thumbnail shows again. */
  async remove(caller: Caller, owner: CoverOwner, id: string): Promise<void> {
    await this.assertVisible(caller, owner, id);
    const previous = await this.repositories.edits.setCover(owner, id, null);
    if (previous) await this.settings.covers.remove(previous);
  }

  /**
   * Deletes uploaded covers whose book or series is gone for good (purged, library deleted);
   * covers still in use are kept.
   */
  async removeOrphans(): Promise<Removal> {
    return removeUnreferencedFiles(this.settings.covers, await this.repositories.edits.coverPaths());
  }

  /** Maintenance: orphaned thumbnails (see ThumbnailQueue.cleanup) and orphaned uploaded covers, together. */
  async removeUnusedImages(): Promise<Removal> {
    const thumbnails = await this.thumbnails.cleanup();
    const covers = await this.removeOrphans();
    return { removed: thumbnails.removed + covers.removed, freedBytes: thumbnails.freedBytes + covers.freedBytes };
  }

  private async assertVisible(caller: Caller, owner: CoverOwner, id: string): Promise<void> {
    if (owner === "book") await this.books.get(caller, id);
    else await this.series.get(caller, id);
  }

  /** Judged by the bytes (never by a declared content type), then decoded and encoded anew. */
  private async reencode(image: Uint8Array): Promise<Uint8Array> {
    let format: string | undefined;
    try {
      format = (await sharp(image, { limitInputPixels: this.settings.maxPixels }).metadata()).format;
    } catch {
      format = undefined;
    }
    if (!format || !ACCEPTED_FORMATS.has(format)) {
      throw new DomainError("BadRequest", "the file is not an image in a supported format (JPEG, PNG, WebP, GIF, AVIF, HEIF or TIFF)", {
        fields: { file: "must be an image" },
      });
    }
    try {
      return await makeThumbnail(image, { height: this.settings.height, format: this.settings.format }, this.settings.maxPixels);
    } catch (error) {
      throw new DomainError("BadRequest", `the image cannot be used: ${toBookAnalysisError(error).message}`, { fields: { file: "must be a readable image" } });
    }
  }
}

export function coverTooLarge(maxBytes: number): DomainError {
  return new DomainError("PayloadTooLarge", `the cover is larger than the limit of ${maxBytes} bytes`, { limit: maxBytes });
}

/** The stored image, or undefined when it is gone (cleaned up, or never written): the caller falls back. */
async function imageFile(store: FileStore, key: string): Promise<ImageFile | undefined> {
  const version = await store.version(key);
  if (!version) return undefined;
  return { mediaType: PAGE_IMAGE_TYPES[extensionOf(key)] ?? "application/octet-stream", version, body: () => store.body(key) };
}
