/**
 * The API keys section shared by the account page (a user's own keys, under /account/api-keys)
 * and the admin's user page (any user's keys, under /admin/users/:id/api-keys): list, create
 * (the key is shown once, with a copy button; full or reader scope), revoke. htmx swaps the
 * section; a plain form post gets the whole page with the section in the same state.
 */
import { t } from "elysia";
import type { CreatedApiKey } from "../../auth/api-keys";
import type { ApiKeyScope } from "../../db";
import { ApiKeyScopeSchema } from "../params";
import type { Services } from "../../services";
import { inputProblem } from "./forms";
import { htmlResponse, renderTemplate, wantsFragment, type Viewer } from "./views";

export interface ApiKeySection {
  /** Whose keys: the account itself or the user an admin looks at. */
  userId: string;
  /** The username the keys act as, or null for the viewer's own keys. */
  owner: string | null;
  basePath: string;
  /** The whole page around the section, for requests made without htmx. */
  page: (apiKeys: ApiKeySectionData, status: number) => Promise<Response>;
}

/** The creation form's fields (the scope defaults to full). */
export const ApiKeyForm = t.Object({
  name: t.String({ maxLength: 200 }),
  scope: t.Optional(ApiKeyScopeSchema),
  _csrf: t.Optional(t.String()),
});

export type ApiKeySectionData = Awaited<ReturnType<typeof apiKeySectionData>>;

type Outcome = { created?: CreatedApiKey; error?: string };

export async function apiKeySectionData(services: Services, viewer: Viewer, section: Pick<ApiKeySection, "userId" | "owner" | "basePath">, outcome: Outcome = {}) {
  return { viewer, keys: await services.apiKeys.list(section.userId), owner: section.owner, basePath: section.basePath, ...outcome };
}

async function answer(services: Services, request: Request, viewer: Viewer, section: ApiKeySection, outcome: Outcome, status = 200): Promise<Response> {
  const data = await apiKeySectionData(services, viewer, section, outcome);
  return wantsFragment(request) ? htmlResponse(renderTemplate("partials/api-keys", data), status) : section.page(data, status);
}

export async function createApiKey(
  services: Services,
  request: Request,
  viewer: Viewer,
  section: ApiKeySection,
  form: { name: string; scope?: ApiKeyScope },
): Promise<Response> {
  try {
    return await answer(services, request, viewer, section, { created: await services.apiKeys.create(section.userId, form.name, null, form.scope) });
  } catch (error) {
    return answer(services, request, viewer, section, { error: inputProblem(error, viewer.translator) }, 422);
  }
}

export async function revokeApiKey(services: Services, request: Request, viewer: Viewer, section: ApiKeySection, keyId: string): Promise<Response> {
  await services.apiKeys.revoke(section.userId, keyId);
  return answer(services, request, viewer, section, {});
}
