/**
 * Credentials before body, one mechanism for every route option that needs credentials.
 *
 * Elysia parses a body before its transform phase, where route options check the caller. So the
 * body hook (src/http/request-body.ts) checks the credentials of a route that needs them first,
 * records the verdict here, and answers nothing itself when they are refused: it leaves the body
 * unread and the option's own hook then answers (401/403/429) from the same verdict. One check
 * per request: the option's hook takes the recorded verdict instead of checking again (a second
 * check would count a wrong password twice, or start a second session).
 *
 * A route option says how it checks by `credentialOption`, next to its macro:
 *
 *   const ACCESS = credentialOption({ detailKey: "x-longbox-access", parameterOf, check });
 *   macro({ auth: (level) => ({ detail: ACCESS.detail(level), transform: ... ACCESS.verdict(services, request, server, level) }) })
 *
 * The route's `detail` carries the option's key with its parameter (the access level), by which
 * the body hook finds the check of each mounted route; this module knows no option by name.
 */
import type { Server } from "bun";
import type { Services } from "../services";

export type CredentialServices = Pick<Services, "authenticator" | "cookieSessions" | "config">;

type Peer = Server<unknown> | null;

interface CredentialRule<P, T> {
  /** The `detail` key the option marks its routes with; its value is the option's parameter. */
  detailKey: string;
  /** The parameter a route's detail holds under `detailKey`; undefined when it holds none. */
  parameterOf: (value: unknown) => P | undefined;
  /** Resolves with what the option needs when the caller may use the route; rejects (401/403/429) when refused. */
  check: (services: CredentialServices, request: Request, server: Peer, parameter: P) => Promise<T>;
}

interface CredentialOption<P, T> {
  /** The detail that marks a route of the option (and tells the body hook to check first). */
  detail: (parameter: P) => Record<string, P>;
  /** The verdict on a request: the one reached before its body was read, else reached now. */
  verdict: (services: CredentialServices, request: Request, server: Peer, parameter: P) => Promise<T>;
}

/** Checks a request's credentials before its body is read; false when refused (the option's hook then answers why). */
export type CheckBeforeBody = (request: Request, server: Peer) => Promise<boolean>;

/** The registered options: for a detail key, the check (recording its verdict) a route's detail value asks for. */
const checksByDetailKey = new Map<string, (services: CredentialServices, value: unknown) => ((request: Request, server: Peer) => Promise<unknown>) | undefined>();

/** Registers a route option's credential check with the body hook; returns the option's side of it. */
export function credentialOption<P, T>(rule: CredentialRule<P, T>): CredentialOption<P, T> {
  if (checksByDetailKey.has(rule.detailKey)) throw new Error(`two credential options mark their routes with ${rule.detailKey}`);
  /**
   * The verdicts this option's check reached before a body was read. Each option keeps its own:
   * a verdict found here is one of this option's, for the parameter of the route's detail, which
   * is the parameter its hook asks with.
   */
  const verdicts = new WeakMap<Request, Promise<T>>();
  checksByDetailKey.set(rule.detailKey, (services, value) => {
    const parameter = rule.parameterOf(value);
    if (parameter === undefined) return undefined;
    return (request, server) => {
      const verdict = rule.check(services, request, server, parameter);
      verdicts.set(request, verdict);
      return verdict;
    };
  });
  return {
    detail: (parameter) => ({ [rule.detailKey]: parameter }),
    verdict: (services, request, server, parameter) => verdicts.get(request) ?? rule.check(services, request, server, parameter),
  };
}

/** The check a mounted route's `detail` asks for before its body is read; undefined for a route open to anyone. */
export function checkBeforeBodyOf(services: CredentialServices, detail: unknown): CheckBeforeBody | undefined {
  if (typeof detail !== "object" || detail === null) return undefined;
  for (const [detailKey, checkOf] of checksByDetailKey) {
    if (!(detailKey in detail)) continue;
    const check = checkOf(services, (detail as Record<string, unknown>)[detailKey]);
    if (!check) continue;
    return (request, server) =>
      check(request, server).then(
        () => true,
        () => false,
      );
  }
  return undefined;
}
