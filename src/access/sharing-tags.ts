/**
 * Sharing tags (admin only, enforced by the routes): the tags themselves, which series carry
 * them, and which users hold allow or deny grants for them. What the grants mean for
 * visibility is decided in one place, src/db/repositories/access.ts.
 *
 * Unknown tag ids in a request body are 422 (the request is well-formed, the tag it names does
 * not exist); an unknown series, user, tag or grant in the path is 404.
 */
import type { Database, Repositories, SharingAccessMode, SharingGrantRecord, SharingTagRecord } from "../db";
import { isUuid } from "../db";
import { DomainError, invalidFields, notFound } from "../errors";

export interface SharingTagDto {
  id: string;
  name: string;
  description: string | null;
  seriesCount: number;
  userCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface SharingTagInput {
  name?: string;
  description?: string | null;
}

export interface SeriesSharingTags {
  seriesId: string;
  sharingTags: { id: string; name: string }[];
}

export type SharingGrantDto = SharingGrantRecord;

export function toSharingTagDto(tag: SharingTagRecord): SharingTagDto {
  return { ...tag, createdAt: tag.createdAt.toISOString(), updatedAt: tag.updatedAt.toISOString() };
}

const nameTaken = () => new DomainError("Conflict", "a sharing tag with this name already exists", { fields: { name: "taken" } });

export class SharingTagService {
  constructor(
    private readonly database: Database,
    private readonly repositories: Repositories,
  ) {}

  async list(offset: number, limit: number): Promise<{ rows: SharingTagDto[]; total: number }> {
    const { rows, total } = await this.repositories.sharingTags.list(offset, limit);
    return { rows: rows.map(toSharingTagDto), total };
  }

  async get(id: string): Promise<SharingTagDto> {
    return toSharingTagDto(await this.require(id));
  }

  async create(input: SharingTagInput): Promise<SharingTagDto> {
    const name = requiredName(input.name);
    const created = await this.repositories.sharingTags.create(name, normalisedDescription(input.description));
    if (!created) throw nameTaken();
    return toSharingTagDto(created);
  }

  async update(id: string, input: SharingTagInput): Promise<SharingTagDto> {
    const changes: SharingTagInput = {};
    if (input.name !== undefined) changes.name = requiredName(input.name);
    if (input.description !== undefined) changes.description = normalisedDescription(input.description);
    return this.database.transaction(async () => {
      await this.require(id);
      if (changes.name !== undefined) {
        const holder = await this.repositories.sharingTags.findByName(changes.name);
        if (holder && holder.id !== id) throw nameTaken();
      }
      await this.repositories.sharingTags.update(id, changes);
      return this.get(id);
    });
  }

  async delete(id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repositories.sharingTags.delete(id))) throw notFound("sharing tag");
  }

  async tagsOfSeries(seriesId: string): Promise<SeriesSharingTags> {
    await this.requireSeries(seriesId);
    return { seriesId, sharingTags: await this.repositories.sharingTags.tagsOfSeries(seriesId) };
  }

  /** Replaces the series' tags with exactly these. */
  async setTagsOfSeries(seriesId: string, tagIds: string[]): Promise<SeriesSharingTags> {
    const wanted = [...new Set(tagIds)];
    return this.database.transaction(async () => {
      await this.requireSeries(seriesId);
      await this.requireTags(wanted, "sharingTagIds");
      await this.repositories.sharingTags.replaceTagsOfSeries(seriesId, wanted);
      return this.tagsOfSeries(seriesId);
    });
  }

  async grantsOf(userId: string): Promise<SharingGrantDto[]> {
    await this.requireUser(userId);
    return this.repositories.sharingTags.grantsOf(userId);
  }

  /** Creates or changes the user's grant for one tag; returns all of the user's grants. */
  async grant(userId: string, sharingTagId: string, accessMode: SharingAccessMode): Promise<SharingGrantDto[]> {
    return this.database.transaction(async () => {
      await this.requireUser(userId);
      await this.requireTags([sharingTagId], "sharingTagId");
      await this.repositories.sharingTags.upsertGrant(userId, sharingTagId, accessMode);
      return this.repositories.sharingTags.grantsOf(userId);
    });
  }

  async revoke(userId: string, sharingTagId: string): Promise<void> {
    await this.requireUser(userId);
    if (!isUuid(sharingTagId) || !(await this.repositories.sharingTags.deleteGrant(userId, sharingTagId))) {
      throw notFound("sharing grant");
    }
  }

  private async require(id: string): Promise<SharingTagRecord> {
    const tag = isUuid(id) ? await this.repositories.sharingTags.findById(id) : undefined;
    if (!tag) throw notFound("sharing tag");
    return tag;
  }

  private async requireSeries(id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repositories.sharingTags.seriesExists(id))) throw notFound("series");
  }

  private async requireUser(id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repositories.users.findById(id))) throw notFound("user");
  }

  private async requireTags(ids: string[], field: string): Promise<void> {
    const existing = new Set(await this.repositories.sharingTags.existingIds(ids.filter(isUuid)));
    const unknown = ids.filter((id) => !existing.has(id));
    if (unknown.length > 0) throw invalidFields("UnprocessableEntity", { [field]: `unknown sharing tag: ${unknown.join(", ")}` });
  }
}

function requiredName(name: string | undefined): string {
  const trimmed = name?.trim();
  if (!trimmed) throw invalidFields("BadRequest", { name: "is required" });
  return trimmed;
}

/** A blank description is no description. */
function normalisedDescription(description: string | null | undefined): string | null {
  return description?.trim() || null;
}
