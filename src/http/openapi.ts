/**
 * The OpenAPI document, generated from the route schemas and `detail` of every route: JSON at
 * /api/docs/json and a browsable page at /api/docs (the Scalar viewer, loaded from its CDN by
 * the browser). Both are open: the document describes the API, it exposes no data.
 *
 * Routes with the `auth` option get `API_SECURITY` from the auth macro (src/http/auth-plugin.ts),
 * so the document's security requirements cannot drift from what the routes enforce.
 */
import { openapi } from "@elysiajs/openapi";
import { VERSION } from "../version";

/** Any one of these credentials is enough (see src/auth/authenticator.ts). */
export const API_SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { basicAuth: [] }, { apiKeyAuth: [] }];

export function apiDocumentation() {
  return openapi({
    path: "/api/docs",
    specPath: "/api/docs/json",
    // The plugin hands the viewer a path relative to the page, which breaks below /api.
    scalar: { url: "/api/docs/json" },
    // The web interface's pages (everything outside the API, OPDS and /health) are not API.
    exclude: { paths: /^\/(?!api\/|opds\/|health$)/ },
    documentation: {
      info: {
        title: "Longbox API",
        version: VERSION,
        description: "Catalogue and reading API of Longbox. Errors are `{error, message, details?}`; see docs/api.md.",
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "An access token from POST /api/v1/auth/login, or an API key (`lbx_...`)",
          },
          basicAuth: { type: "http", scheme: "basic", description: "Username and password, or username and an API key" },
          apiKeyAuth: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key (`lbx_...`)" },
        },
      },
    },
  });
}
