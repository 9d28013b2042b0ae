/**
 * What a username may be, and when two of them name the same person to a reader's eye.
 *
 * - Every sign-in path and every new account takes the name in Unicode NFKC (`normalizeUsername`):
 *   the fullwidth `ａｌｉｃｅ` typed on a phone is `alice`.
 * - A new name may hold no invisible, control or bidirectional-formatting character (zero-width
 *   spaces, right-to-left overrides, ...), nor white space or a colon (HTTP Basic splits at it).
 * - A new name may not look like an existing one: their confusable skeletons (Unicode TS #39,
 *   section 4: NFD, default-ignorables removed, each character replaced by its prototype from
 *   Unicode's confusables.txt through the unhomoglyph package, NFD again) must differ, compared
 *   as typed and in lower case, since names match regardless of case. So `аlice` with a Cyrillic
 *   а is refused beside `alice`. `longbox config check` reports existing names that collide.
 */
import unhomoglyph from "unhomoglyph";

export const MAX_USERNAME_LENGTH = 64;

/** Characters a username may not hold: controls, format characters (bidi, zero-width), other invisible ones, white space, separators, colons, private use, unassigned. */
const FORBIDDEN = "[\\p{Cc}\\p{Cf}\\p{Co}\\p{Cn}\\p{Cs}\\p{Z}\\p{Default_Ignorable_Code_Point}\\s:]";
const HOLDS_FORBIDDEN = new RegExp(FORBIDDEN, "u");
const FORBIDDEN_RUNS = new RegExp(`${FORBIDDEN}+`, "gu");
const FORBIDDEN_EACH = new RegExp(FORBIDDEN, "gu");

/** A name quoted for a report, its invisible characters written as \u{...} so that they show. */
const shown = (username: string): string =>
  `"${username.replace(FORBIDDEN_EACH, (character) => `\\u{${character.codePointAt(0)!.toString(16).toUpperCase()}}`)}"`;

export const normalizeUsername = (username: string): string => username.normalize("NFKC");

/** Why a (normalized) name cannot be a new username; undefined when it can. */
export function usernameProblem(username: string): string | undefined {
  if (username.length === 0 || [...username].length > MAX_USERNAME_LENGTH) return `must be 1 to ${MAX_USERNAME_LENGTH} characters`;
  if (HOLDS_FORBIDDEN.test(username)) return "must not contain spaces, colons, or control, invisible or bidirectional-formatting characters";
  return undefined;
}

/** A username made from free text (an OIDC claim): NFKC, forbidden characters replaced by `_`, at most `length` characters. */
export function usernameFrom(text: string, length: number): string {
  return [...normalizeUsername(text).replace(FORBIDDEN_RUNS, "_")].slice(0, length).join("");
}

/** The TS #39 skeleton of a string. */
function skeleton(text: string): string {
  return unhomoglyph(text.normalize("NFD").replace(/\p{Default_Ignorable_Code_Point}/gu, "")).normalize("NFD");
}

/** The skeletons two names are compared by: as typed and in lower case. */
function skeletonsOf(username: string): Set<string> {
  const normalized = normalizeUsername(username);
  return new Set([skeleton(normalized), skeleton(normalized.toLowerCase())]);
}

/** Whether two usernames would look alike to a reader (or are the same name). */
export function usernamesLookAlike(a: string, b: string): boolean {
  const skeletons = skeletonsOf(a);
  for (const other of skeletonsOf(b)) if (skeletons.has(other)) return true;
  return false;
}

/** What `config check` says of existing accounts: each group of names that look alike, each name a new account could not have. */
export function usernameReport(accounts: readonly { username: string }[]): string[] {
  const lines = lookAlikeUsernames(accounts).map(
    (group) => `these usernames look alike (Unicode TS #39 confusables): ${group.map((account) => shown(account.username)).join(", ")}`,
  );
  for (const { username } of accounts) {
    const problem = usernameProblem(normalizeUsername(username));
    if (problem) lines.push(`the username ${shown(username)} ${problem}`);
    else if (normalizeUsername(username) !== username) lines.push(`the username ${shown(username)} is not in Unicode NFKC: it signs in as typed only`);
  }
  return lines;
}

/** Groups of two or more names (of `accounts`) that look alike. */
function lookAlikeUsernames<T extends { username: string }>(accounts: readonly T[]): T[][] {
  const groups: T[][] = [];
  const grouped = new Set<T>();
  for (const [index, account] of accounts.entries()) {
    if (grouped.has(account)) continue;
    const group = [account, ...accounts.slice(index + 1).filter((other) => !grouped.has(other) && usernamesLookAlike(account.username, other.username))];
    if (group.length < 2) continue;
    for (const member of group) grouped.add(member);
    groups.push(group);
  }
  return groups;
}
