/**
 * A real OpenID provider (the oidc-provider package) on a loopback port inside the test process,
 * with its development login and consent forms, and a minimal cookie-keeping "browser" that
 * walks the authorization-code flow with real redirects and form posts.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export const CLIENT_ID = "longbox";
export const CLIENT_SECRET = "longbox-oidc-client-secret";
export const ADMIN_GROUP = "longbox-admins";

export interface TestIdentityProvider {
  issuer: string;
  /** Claims of each account by subject; the login form accepts any subject listed here. */
  accounts: Map<string, Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startIdentityProvider(providerId: string): Promise<TestIdentityProvider> {
  const accounts = new Map<string, Record<string, unknown>>();
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        // A native client's loopback redirect URI matches whatever port Longbox listens on (RFC 8252).
        application_type: "native",
        redirect_uris: [`http://127.0.0.1/api/v1/auth/oidc/${providerId}/callback`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username", "groups"] },
    cookies: { keys: ["test-cookie-signing-key"] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    findAccount: async (_context: unknown, id: string) => {
      const claims = accounts.get(id);
      return claims && { accountId: id, claims: async () => ({ sub: id, ...claims }) };
    },
  });
  http.on("request", provider.callback());
  return {
    issuer,
    accounts,
    stop: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** Follows redirects by hand, keeps the provider's cookies, and fills in the dev forms. */
export class TestBrowser {
  private readonly cookies = new Map<string, string>();

  async get(url: string | URL): Promise<Response> {
    return this.request(new URL(url), { method: "GET" });
  }

  /**
   * From the provider's authorization URL, signs in as `subject`, consents, and returns the
   * URL the provider redirects to (Longbox's callback), without following it.
   */
  async signInAtProvider(authorizationUrl: URL, subject: string): Promise<URL> {
    let url = authorizationUrl;
    for (let step = 0; step < 20; step++) {
      const response = await this.get(url);
      const location = response.headers.get("location");
      if (location) {
        const next = new URL(location, url);
        if (next.origin !== authorizationUrl.origin) return next;
        url = next;
        continue;
      }
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`unexpected provider page (${response.status}):\n${html.slice(0, 500)}`);
      const form = new URLSearchParams(prompt === "login" ? { prompt, login: subject, password: "any" } : { prompt });
      const submitted = await this.request(new URL(action, url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: form.toString(),
      });
      const after = submitted.headers.get("location");
      if (!after) throw new Error(`the ${prompt} form did not redirect (${submitted.status})`);
      url = new URL(after, url);
    }
    throw new Error("the provider never redirected back");
  }

  private async request(url: URL, init: RequestInit): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, {
      ...init,
      redirect: "manual",
      headers: { ...(init.headers as Record<string, string>), ...(cookie && { cookie }) },
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ""] = header.split(";");
      const separator = pair.indexOf("=");
      const name = pair.slice(0, separator).trim();
      const value = pair.slice(separator + 1).trim();
      if (value) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
    return response;
  }
}
