/**
 * The pictures that stand for books and series. A cover uploaded by an admin wins; otherwise a
 * book shows its generated thumbnail (made on demand when the queue has not got to it yet) and
 * a series shows its first book's. Uploaded covers are decoded and re-encoded (which drops
 * their metadata and anything that is not pixels) at the thumbnail size, and kept under
 * files.cover_dir as <books|series>/<id>.<ext>: apart from thumbnails, which can be regenerated
 * and are cleaned up, while covers cannot.
 */
import { mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import sharp from "sharp";
import type { CoverOwner, Repositories } from "../db";
import { DomainError } from "../errors";
import { extensionOf, PAGE_IMAGE_TYPES } from "../formats/images";
import { toBookAnalysisError } from "../formats/registry";
import { makeThumbnail } from "../formats/resize";
import { removeUnreferencedFiles, type Removal } from "./orphan-files";
import type { BookService, Caller } from "./books";
import type { SeriesService } from "./series";
import type { ThumbnailQueue } from "./thumbnails";

export interface CoverSettings {
  coverDir: string;
  thumbnailDir: string;
  format: "webp" | "jpeg";
  height: number;
  maxUploadBytes: number;
  maxPixels: number;
}

/** An image file to send. */
export interface ImageFile {
  path: string;
  mediaType: string;
  size: number;
  modifiedAt: Date;
}

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

  async bookThumbnail(caller: Caller, bookId: string): Promise<ImageFile> {
    const book = await this.books.get(caller, bookId);
    const existing =
      (book.customCoverPath ? await imageFile(join(this.settings.coverDir, book.customCoverPath)) : undefined) ??
      (book.thumbnailPath ? await imageFile(join(this.settings.thumbnailDir, book.thumbnailPath)) : undefined);
    if (existing) return existing;
    const made = await this.thumbnails.generate(book.id);
    const generated = made ? await imageFile(join(this.settings.thumbnailDir, made)) : undefined;
    if (!generated) throw new DomainError("NotFound", "no thumbnail can be made for this book (its analysis errors say why)");
    return generated;
  }

  async seriesThumbnail(caller: Caller, seriesId: string): Promise<ImageFile> {
    const series = await this.series.get(caller, seriesId);
    const uploaded = series.customCoverPath ? await imageFile(join(this.settings.coverDir, series.customCoverPath)) : undefined;
    if (uploaded) return uploaded;
    const firstBookId = await this.series.firstBookId(series.id);
    if (!firstBookId) throw new DomainError("NotFound", "the series has no book to take a thumbnail from");
    return this.bookThumbnail(caller, firstBookId);
  }

  /** Stores an uploaded cover (admin): 413 over the size limit, 400 when it is not an image. */
  async upload(caller: Caller, owner: CoverOwner, id: string, image: Uint8Array): Promise<void> {
    await this.assertVisible(caller, owner, id);
    if (image.length > this.settings.maxUploadBytes) throw coverTooLarge(this.settings.maxUploadBytes);
    const encoded = await this.reencode(image);
    const extension = this.settings.format === "webp" ? "webp" : "jpg";
    const stored = join(owner === "book" ? "books" : "series", `${id}.${extension}`);
    const target = join(this.settings.coverDir, stored);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(`${target}.tmp`, encoded);
    await rename(`${target}.tmp`, target);
    const previous = await this.repositories.edits.setCover(owner, id, stored);
    if (previous && previous !== stored) await rm(join(this.settings.coverDir, previous), { force: true });
  }

  /** Removes the uploaded cover (admin); the generated thumbnail shows again. */
  async remove(caller: Caller, owner: CoverOwner, id: string): Promise<void> {
    await this.assertVisible(caller, owner, id);
    const previous = await this.repositories.edits.setCover(owner, id, null);
    if (previous) await rm(join(this.settings.coverDir, previous), { force: true });
  }

  /**
   * Deletes uploaded covers whose book or series is gone for good (purged, library deleted);
   * covers still in use are kept.
   */
  async removeOrphans(): Promise<Removal> {
    return removeUnreferencedFiles(this.settings.coverDir, await this.repositories.edits.coverPaths());
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

async function imageFile(path: string): Promise<ImageFile | undefined> {
  try {
    const info = await stat(path);
    return { path, mediaType: PAGE_IMAGE_TYPES[extensionOf(path)] ?? "application/octet-stream", size: info.size, modifiedAt: info.mtime };
  } catch {
    return undefined; // gone (cleaned up, or never written): the caller falls back
  }
}
