/**
 * OIDC single sign-on with openid-client: discovery, authorization-code flow with PKCE, state and
 * nonce. The pending sign-in (state, nonce, PKCE verifier, redirect URI) stays on the server, in
 * the database (the callback may reach another process or instance), keyed by the state and
 * usable once within PENDING_TTL_MS: a callback whose state is not one we issued is refused
 * before anything is sent to the provider. The verifier and the nonce are stored encrypted
 * (./secret-box.ts), bound to their state; one that cannot be opened (written under another
 * encryption key) refuses the sign-in like an expired one.
 *
 * The callback finds the account by (provider, subject); else links it to the account with the
 * same email when the provider says the email is verified; else creates one. Membership of the
 * configured admin group (in the configured groups claim) grants the admin role; it is never
 * taken away automatically, so the provider cannot lock the last admin out.
 */
import * as client from "openid-client";
import type { OidcProviderConfig } from "../config/schema";
import type { PendingSignInRecord, Repositories, UserRecord } from "../db";
import { DomainError, notFound } from "../errors";
import type { Logger } from "../logging/logger";
import { UnreadableSecretError, type SecretBox } from "./secret-box";
import type { LoginResult, Sessions } from "./sessions";
import { usernameFrom, usernamesLookAlike } from "./usernames";

export interface OidcProviderSummary {
  id: string;
  name: string;
}

const PENDING_TTL_MS = 10 * 60 * 1000;
/** Bounds the rows that a flood of unfinished sign-ins can take; the oldest are dropped first. */
const MAX_PENDING = 10_000;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Binds a sealed secret to its pending sign-in and column: it opens nowhere else. */
const sealContext = (state: string, column: string) => `oidc_pending_sign_ins.${column}:${state}`;

const signInFailed = (reason: string) => new DomainError("Unauthorized", `single sign-on failed: ${reason}`);

export class OidcService {
  private readonly providers: Map<string, OidcProviderConfig>;
  private readonly discovered = new Map<string, Promise<client.Configuration>>();

  constructor(
    providers: OidcProviderConfig[],
    private readonly repositories: Repositories,
    private readonly sessions: Sessions,
    private readonly secrets: SecretBox,
    private readonly log: Logger,
  ) {
    this.providers = new Map(providers.map((provider) => [provider.id, provider]));
  }

  listProviders(): OidcProviderSummary[] {
    return [...this.providers.values()].map(({ id, name }) => ({ id, name }));
  }

  /** The provider's authorization URL to send the browser to; `redirectUri` is our callback. */
  async beginSignIn(providerId: string, redirectUri: string): Promise<URL> {
    const provider = this.provider(providerId);
    const configuration = await this.configuration(provider);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + PENDING_TTL_MS);
    const sealed = { codeVerifier: this.secrets.seal(codeVerifier, sealContext(state, "code_verifier")), nonce: this.secrets.seal(nonce, sealContext(state, "nonce")) };
    await this.repositories.pendingSignIns.save({ state, providerId, ...sealed, redirectUri, expiresAt }, now, MAX_PENDING);
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: provider.scopes.join(" "),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
      state,
      nonce,
    });
  }

  /** Completes the sign-in from the callback's query parameters and starts a session. */
  async completeSignIn(providerId: string, callbackQuery: URLSearchParams): Promise<LoginResult> {
    const provider = this.provider(providerId);
    const state = callbackQuery.get("state") ?? "";
    const pending = state ? await this.repositories.pendingSignIns.take(state) : undefined;
    if (!pending || pending.providerId !== providerId || pending.expiresAt.getTime() < Date.now()) {
      throw signInFailed("unknown or expired sign-in attempt (state mismatch)");
    }
    const providerError = callbackQuery.get("error");
    if (providerError) throw signInFailed(`the provider answered ${providerError}`);
    const { codeVerifier, nonce } = this.openSecrets(providerId, state, pending);

    const configuration = await this.configuration(provider);
    const callbackUrl = new URL(pending.redirectUri);
    callbackUrl.search = callbackQuery.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await client.authorizationCodeGrant(
        configuration,
        callbackUrl,
        { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true },
        { redirect_uri: pending.redirectUri },
      );
      const idClaims = tokens.claims();
      if (!idClaims) throw new Error("no ID token");
      const userInfo = configuration.serverMetadata().userinfo_endpoint
        ? await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub)
        : {};
      claims = { ...userInfo, ...idClaims };
    } catch (error) {
      this.log.warn("OIDC callback rejected", { provider: providerId, reason: (error as Error).message });
      throw signInFailed("the provider's answer did not validate");
    }
    const user = await this.accountFor(provider, claims);
    return this.sessions.start(user);
  }

  /** The pending sign-in's verifier and nonce in clear; a sign-in whose secrets do not open is refused. */
  private openSecrets(providerId: string, state: string, pending: PendingSignInRecord): { codeVerifier: string; nonce: string } {
    try {
      return {
        codeVerifier: this.secrets.open(pending.codeVerifier, sealContext(state, "code_verifier")),
        nonce: this.secrets.open(pending.nonce, sealContext(state, "nonce")),
      };
    } catch (error) {
      if (!(error instanceof UnreadableSecretError)) throw error;
      const otherKey = error.reason === "other-key";
      this.log.warn(
        otherKey
          ? "OIDC sign-in refused: it was started under another encryption key (the key changed, or the instances do not share encryption_key)"
          : "OIDC sign-in refused: its stored secrets do not open (altered, or written by an older version)",
        { provider: providerId },
      );
      throw signInFailed("the sign-in attempt can no longer be read on this server; please sign in again");
    }
  }

  private async accountFor(provider: OidcProviderConfig, claims: Record<string, unknown>): Promise<UserRecord> {
    const subject = String(claims.sub);
    const email = typeof claims.email === "string" ? claims.email : null;
    const emailVerified = claims.email_verified === true;
    const groups = claims[provider.groups_claim];
    const isAdmin = !!provider.admin_group && Array.isArray(groups) && groups.includes(provider.admin_group);
    const users = this.repositories.users;

    let user: UserRecord | undefined;
    const identity = await this.repositories.oidcIdentities.find(provider.id, subject);
    if (identity) user = await users.findById(identity.userId);
    if (!user && email && emailVerified) {
      user = await users.findByEmail(email);
      if (user) {
        await this.repositories.oidcIdentities.link(user.id, provider.id, subject);
        this.log.info("OIDC identity linked to an existing account by verified email", { provider: provider.id, userId: user.id });
      }
    }
    if (!user) {
      // An address that another account already holds (unverified claim) is not copied.
      const storedEmail = email !== null && !(await users.findByEmail(email)) ? email : null;
      user = await users.create({
        username: await this.freeUsername(claims, provider.id, subject),
        email: storedEmail,
        passwordHash: null,
        role: isAdmin ? "admin" : "user",
        // Without an address there is nothing to verify.
        emailVerified: storedEmail === null || emailVerified,
      });
      // The name or address was taken by a concurrent sign-up since it was checked.
      if (!user) throw new DomainError("Conflict", "the account could not be created; try signing in again");
      await this.repositories.oidcIdentities.link(user.id, provider.id, subject);
      this.log.info("account created from OIDC sign-in", { provider: provider.id, userId: user.id });
    }
    if (isAdmin && user.role !== "admin") user = (await users.update(user.id, { role: "admin" })) ?? user;
    return user;
  }

  /** preferred_username, else the email's local part, else provider-subject (in NFKC, see ./usernames.ts); suffixed until unused and unlike any other. */
  private async freeUsername(claims: Record<string, unknown>, providerId: string, subject: string): Promise<string> {
    const wanted =
      (typeof claims.preferred_username === "string" && claims.preferred_username) ||
      (typeof claims.email === "string" && claims.email.split("@")[0]) ||
      `${providerId}-${subject}`;
    const base = usernameFrom(wanted, 56);
    const taken = await this.repositories.users.allUsernames();
    for (let suffix = 1; ; suffix++) {
      const candidate = suffix === 1 ? base : `${base}-${suffix}`;
      const alike = taken.some((existing) => usernamesLookAlike(existing.username, candidate));
      if (!alike && !(await this.repositories.users.findByUsername(candidate))) return candidate;
    }
  }

  private provider(providerId: string): OidcProviderConfig {
    const provider = this.providers.get(providerId);
    if (!provider) throw notFound("OIDC provider");
    return provider;
  }

  /** Discovery runs once per provider; a failure is not cached, so the next attempt retries. */
  private configuration(provider: OidcProviderConfig): Promise<client.Configuration> {
    let configuration = this.discovered.get(provider.id);
    if (!configuration) {
      const issuer = new URL(provider.issuer);
      // Plain http is accepted only for a provider on this machine (development and tests).
      const insecure = issuer.protocol === "http:" && LOOPBACK_HOSTS.has(issuer.hostname);
      configuration = client.discovery(
        issuer,
        provider.client_id,
        undefined,
        provider.client_secret ? client.ClientSecretBasic(provider.client_secret) : client.None(),
        insecure ? { execute: [client.allowInsecureRequests] } : undefined,
      );
      configuration.catch((error: unknown) => {
        this.discovered.delete(provider.id);
        this.log.error("OIDC discovery failed", { provider: provider.id, issuer: provider.issuer, error: error as Error });
      });
      this.discovered.set(provider.id, configuration);
    }
    return configuration.catch(() => {
      throw new DomainError("ServiceUnavailable", `the identity provider ${provider.name} cannot be reached`);
    });
  }
}
