/**
 * The caller's lists as OPDS feeds (issue 33), in the version-neutral model of ./catalog.ts:
 * collections (navigation) and each collection's series, read lists (navigation) and each read
 * list's books in its order (acquisition), and the want-to-read series. Everything goes through
 * ReadingListService, so sharing tags cut what each reader sees as on every other surface.
 */
import type { ListKind, ReadingListRecord } from "../../db";
import type { Caller } from "../../library/books";
import type { Services } from "../../services";
import type { PageRequest } from "../paging";
import { feed, LIST_FEEDS, ROOT, seriesEntry, window, type Feed, type NavigationEntry, type OpdsCatalog } from "./catalog";

export class OpdsListFeeds {
  constructor(
    private readonly services: Pick<Services, "readingLists">,
    private readonly catalog: OpdsCatalog,
  ) {}

  /** The caller's collections or read lists, by name. */
  async lists(caller: Caller, kind: ListKind, page: PageRequest): Promise<Feed> {
    const { rows, total } = await this.services.readingLists.list(caller, kind, {}, window(page));
    const { target, title, id } = LIST_FEEDS[kind];
    return feed({ id, title, kind: "navigation", self: target, up: ROOT, paging: { page: page.page, pageSize: page.pageSize, total }, navigation: rows.map(listEntry) });
  }

  /** A collection's series in its order. */
  async collection(caller: Caller, id: string, page: PageRequest): Promise<Feed> {
    const list = await this.services.readingLists.get(caller, "collection", id);
    const { rows, total } = await this.services.readingLists.series(caller, id, window(page));
    return feed({
      id: `urn:uuid:${list.id}`,
      title: list.name,
      kind: "navigation",
      self: { path: `collections/${list.id}` },
      up: LIST_FEEDS.collection.target,
      paging: { page: page.page, pageSize: page.pageSize, total },
      navigation: rows.map(seriesEntry),
    });
  }

  /** A read list's books in its order. */
  async readList(caller: Caller, id: string, page: PageRequest): Promise<Feed> {
    const list = await this.services.readingLists.get(caller, "readlist", id);
    const { rows, total } = await this.services.readingLists.books(caller, id, window(page));
    return feed({
      id: `urn:uuid:${list.id}`,
      title: list.name,
      kind: "acquisition",
      self: { path: `readlists/${list.id}` },
      up: LIST_FEEDS.readlist.target,
      paging: { page: page.page, pageSize: page.pageSize, total },
      publications: await this.catalog.publications(rows),
    });
  }

  async wantToRead(caller: Caller, page: PageRequest): Promise<Feed> {
    const { rows, total } = await this.services.readingLists.wantToRead(caller, window(page));
    const { id, title, target } = LIST_FEEDS.wantToRead;
    return feed({
      id,
      title,
      kind: "navigation",
      self: target,
      up: ROOT,
      paging: { page: page.page, pageSize: page.pageSize, total },
      navigation: rows.map(seriesEntry),
    });
  }
}

function listEntry(list: ReadingListRecord): NavigationEntry {
  const count = `${list.itemCount} ${list.kind === "collection" ? "series" : list.itemCount === 1 ? "book" : "books"}`;
  return {
    id: `urn:uuid:${list.id}`,
    title: list.name,
    description: list.summary ? `${count}. ${list.summary}` : count,
    updated: list.updatedAt,
    target: { path: `${list.kind === "collection" ? "collections" : "readlists"}/${list.id}` },
    targetKind: list.kind === "collection" ? "navigation" : "acquisition",
    relation: "subsection",
  };
}
