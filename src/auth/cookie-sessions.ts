/**
 * Cookie-backed sessions for clients that sign in once and then send only a cookie: the web
 * interface (longbox_session) and Komga clients (KOMGA-SESSION and komga-remember-me). The
 * cookie holds a token of Longbox's own session store: each cookie session is a refresh-token
 * family of one token, which is presented as it is on every request instead of being rotated,
 * and which POST /auth/refresh does not accept. Web sessions (`start`, begun by an interactive
 * sign-in) are of the cookie kind (`cs_`); clients' sessions (`startForClient`, begun by Basic
 * or an API key) of the client kind (`ks_`, or `kr_` when begun by a reader-scoped key: such a
 * session keeps the key's authority, `clientAuthority`), which `find` (the web session) refuses,
 * so an API key cannot become a web session, which may create credentials.
 * So everything that ends refresh-token sessions ends cookie sessions too: logout revokes the
 * token, a password change (which also raises the account's token version) or disabling the
 * account revokes every active token of the user, and the daily job prunes expired ones. The
 * account is read for each request, so a disabled or deleted account is out at once.
 *
 * State-changing requests made with a web session cookie must also carry a CSRF token: an HMAC
 * of the session token under a server secret, so it needs no storage and dies with the session.
 * Knows nothing about HTTP: the slices decide cookie names and attributes.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Repositories, UserRecord } from "../db";
import { assertMaySignIn } from "./account-status";
import { tokenKindOf, type IssuedRefreshToken, type RefreshTokens, type SessionTokenKind } from "./refresh-tokens";
import { sha256Hex } from "./token-digest";

/** How many clients' sessions `startForClient` remembers in a process; the least recently used go first. */
const REMEMBERED_CLIENTS = 4096;

type ClientSessionKind = Extract<SessionTokenKind, "client" | "readerClient">;
/** The authority a client's session carries over from the credential that began it. */
export type ClientAuthority = "full" | "reader";

/** A live session's account, with the account's token version when the session began. */
export interface CookieSession {
  user: UserRecord;
  issuedUnderVersion: number;
}

export class CookieSessions {
  /** By a digest of the client key: the session last started for that client (see `startForClient`). */
  private readonly clientSessions = new Map<string, Promise<IssuedRefreshToken>>();

  constructor(
    private readonly repositories: Repositories,
    private readonly refreshTokens: RefreshTokens,
    private readonly csrfSecret: string,
    private readonly emailConfirmationRequired: boolean,
  ) {}

  /**
   * A new session for a user who has just proven who they are (403 for an account that may not
   * sign in), lasting `lifetimeDays` (by default the refresh tokens' lifetime).
   */
  start(user: UserRecord, lifetimeDays?: number): Promise<IssuedRefreshToken> {
    assertMaySignIn(user, this.emailConfirmationRequired);
    return this.refreshTokens.start(user, "cookie", lifetimeDays);
  }

  /** A client's session (see `startForClient`): a client kind, which is no web session. */
  private startClientSession(user: UserRecord, lifetimeDays: number, kind: ClientSessionKind): Promise<IssuedRefreshToken> {
    assertMaySignIn(user, this.emailConfirmationRequired);
    return this.refreshTokens.start(user, kind, lifetimeDays);
  }

  /**
   * A session for a client that presents its credential on every request and may drop the
   * cookie it is given (a script, or an app before its cookie jar has one): the live session
   * last started for the same `client` key and user, else a new one, remembered for that key.
   * So such a client holds one session instead of writing one per request; requests of one
   * client arriving at once share the one being started. `client` is the slice's opaque key
   * (credential, client name, purpose), kept as a digest; the remembered sessions' tokens are
   * held in memory to hand out again. Remembered per process, so each of several processes may
   * start one; a session that ended (logout, password change, expiry) is replaced.
   */
  startForClient(user: UserRecord, client: string, lifetimeDays: number, authority: ClientAuthority): Promise<IssuedRefreshToken> {
    const kind: ClientSessionKind = authority === "reader" ? "readerClient" : "client";
    const key = sha256Hex(`${user.id}\0${kind}\0${client}`);
    const known = this.clientSessions.get(key);
    const session = (async () => {
      const current = known && (await known.catch(() => undefined));
      if (current && (await this.resume(current.token))?.id === user.id) return current;
      return this.startClientSession(user, lifetimeDays, kind);
    })();
    // Map order is insertion order: re-inserting marks the key as the most recently used.
    this.clientSessions.delete(key);
    this.clientSessions.set(key, session);
    session.catch(() => this.clientSessions.get(key) === session && this.clientSessions.delete(key));
    if (this.clientSessions.size > REMEMBERED_CLIENTS) this.clientSessions.delete(this.clientSessions.keys().next().value!);
    return session;
  }

  /**
   * The web session behind a token, before the account's rules apply (the Authenticator applies
   * them to every credential); undefined when the token is unknown, revoked, expired or a client's.
   */
  find(token: string): Promise<CookieSession | undefined> {
    return this.holderOf(token, ["cookie"]);
  }

  private async holderOf(token: string, kinds: readonly SessionTokenKind[]): Promise<CookieSession | undefined> {
    const family = await this.refreshTokens.sessionHolderOf(token, kinds);
    const user = family && (await this.repositories.users.findForRequest(family.userId));
    return user ? { user, issuedUnderVersion: family.tokenVersion } : undefined;
  }

  /**
   * The account behind a client's session token (or a web session's: a browser's session may
   * read too); undefined when the session ended or the account may not sign in.
   */
  async resume(token: string): Promise<UserRecord | undefined> {
    const session = await this.holderOf(token, ["client", "readerClient", "cookie"]);
    if (!session) return undefined;
    const { user, issuedUnderVersion } = session;
    if (user.disabled || (this.emailConfirmationRequired && !user.emailVerified)) return undefined;
    // A session begun before the account's last password change is over.
    return issuedUnderVersion === user.tokenVersion ? user : undefined;
  }

  /**
   * What a session `resume` accepted may do: a client's session begun by a reader-scoped API key
   * only reads and records progress, as the key does; any other session is not limited here.
   */
  clientAuthority(token: string): ClientAuthority {
    return tokenKindOf(token) === "readerClient" ? "reader" : "full";
  }

  /** Ends the session (logout); unknown or ended tokens are ignored. */
  end(token: string): Promise<void> {
    return this.refreshTokens.revoke(token);
  }

  /** Ends every session of the user (cookie and API refresh tokens alike): "sign out everywhere". */
  endAll(userId: string): Promise<void> {
    return this.refreshTokens.revokeAllOfUser(userId);
  }

  csrfToken(sessionToken: string): string {
    return createHmac("sha256", this.csrfSecret).update("csrf\0").update(sessionToken).digest("base64url");
  }

  csrfTokenMatches(sessionToken: string, presented: string | null | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.csrfToken(sessionToken));
    const given = Buffer.from(presented);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
