/**
 * The OpenAPI document, generated from the route schemas and `detail` of every route
 * (./openapi-document.ts): JSON at
 * /api/docs/json and a browsable page at /api/docs (the Scalar viewer). The viewer's script is
 * the npm package's standalone bundle, embedded in the binary and served at
 * /api/docs/scalar.js: the page loads nothing from another origin, and its CSP says so. All
 * three are open: the document describes the API, it exposes no data.
 *
 * Routes with the `auth` option get `API_SECURITY` from the auth macro (src/http/auth-plugin.ts),
 * so the document's security requirements cannot drift from what the routes enforce.
 */
// The package's exports map hides its browser bundle, so it is reached by path.
import scalarScript from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import { Elysia, type AnyElysia } from "elysia";
import { VERSION } from "../version";
import { useOwnFormatChecks } from "./format-checks";
import { globalRoutes, OTHER_CONTRACTS, openApiPathsAndSchemas } from "./openapi-document";

// The plugin's import replaced TypeBox's format checks with slow ones (see ./format-checks.ts).
useOwnFormatChecks();

/** Any one of these credentials is enough (see src/auth/authenticator.ts). */
export const API_SECURITY: Record<string, string[]>[] = [{ bearerAuth: [] }, { basicAuth: [] }, { apiKeyAuth: [] }];

const SCALAR_PATH = "/api/docs/scalar.js";
const SPEC_PATH = "/api/docs/json";

/**
 * The viewer page: the embedded bundle reads its configuration from the `api-reference`
 * element (a JSON data block, not code) and fetches the document from here. Scalar's default
 * fonts would come from its CDN, so they are off.
 */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Longbox API</title></head>
<body>
<script id="api-reference" type="application/json" data-configuration='{"url":"/api/docs/json","withDefaultFonts":false}'></script>
<script src="${SCALAR_PATH}"></script>
</body>
</html>`;

/** The page's policy: scripts only from here, the styles Scalar injects, the document from here. */
const DOCS_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function apiDocumentation() {
  let document: Record<string, unknown> | undefined;
  let routeCount = 0;
  const documentation: AnyElysia = new Elysia({ name: "api-documentation" })
    .get("/api/docs", () => new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": DOCS_PAGE_CSP } }), {
      detail: { hide: true },
    })
    .get(SCALAR_PATH, () => new Response(Bun.file(scalarScript), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .get(
      SPEC_PATH,
      () => {
        // Built on first use, when every route is registered; again if routes were added since.
        const routes = globalRoutes(documentation).length;
        if (!document || routes !== routeCount) {
          document = apiDocument(documentation);
          routeCount = routes;
        }
        return document;
      },
      { detail: { hide: true } },
    );
  return documentation;
}

function apiDocument(app: AnyElysia): Record<string, unknown> {
  const { paths, schemas } = openApiPathsAndSchemas(app);
  return {
    openapi: "3.1.0",
    info: {
      title: "Longbox API",
      version: VERSION,
      description: `Catalogue and reading API of Longbox. Errors are \`{error, message, details?}\`; see docs/api.md. Answers may gain fields: clients must accept fields they do not know. ${OTHER_CONTRACTS}`,
    },
    paths,
    components: {
      schemas,
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
  };
}
