/**
 * oidc-provider ships no type declarations and there is no @types package for version 9 here:
 * the little the tests use, typed at the library boundary.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & {
      findAccount?: (context: unknown, id: string) => Promise<Account | undefined>;
    });
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
