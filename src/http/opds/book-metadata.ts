/**
 * What both OPDS versions say about a book beyond its title: people, language, publisher, the
 * publication date and identifiers, taken from the stored metadata and kept only when they are
 * well-formed (a language that is not a BCP 47 tag would fail an OPDS 2 schema, and mislead a
 * reader in OPDS 1.2 too).
 */
import type { BookView } from "../../db";

export interface BookMetadata {
  /** Writers: the people readers list a book under. */
  authors: string[];
  /** Everyone else, with their role (penciller, colorist, translator, ...). */
  contributors: { name: string; role: string }[];
  language?: string;
  publisher?: string;
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  issued?: string;
  /** `urn:isbn:...` when the book has an ISBN. */
  isbn?: string;
  genres: string[];
}

const AUTHOR_ROLES = new Set(["writer", "author"]);
/** A BCP 47 tag in its common shape (language, optional script, region, variants). */
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-[A-Za-z0-9]{5,8})*$/;

export function bookMetadata(book: BookView): BookMetadata {
  const people = (book.metadata.authors ?? []).filter((person) => person.name.trim() !== "");
  const language = book.metadata.language?.trim();
  const isbn = book.metadata.identifiers?.isbn?.replace(/[^0-9Xx]/g, "");
  return {
    authors: people.filter((person) => AUTHOR_ROLES.has(person.role.toLowerCase())).map((person) => person.name),
    contributors: people.filter((person) => !AUTHOR_ROLES.has(person.role.toLowerCase())),
    language: language && LANGUAGE_TAG.test(language) ? language : undefined,
    publisher: book.metadata.publisher?.trim() || undefined,
    issued: issuedDate(book),
    isbn: isbn && (isbn.length === 10 || isbn.length === 13) ? `urn:isbn:${isbn}` : undefined,
    genres: (book.metadata.genres ?? []).filter((genre) => genre.trim() !== ""),
  };
}

function issuedDate(book: BookView): string | undefined {
  if (book.year === null || book.year < 1 || book.year > 9999) return undefined;
  const two = (value: number) => String(value).padStart(2, "0");
  const { month, day } = book.metadata;
  const year = String(book.year).padStart(4, "0");
  if (month === undefined || month < 1 || month > 12) return year;
  if (day === undefined || day < 1 || day > 31) return `${year}-${two(month)}`;
  return `${year}-${two(month)}-${two(day)}`;
}
