/**
 * Assembles the HTTP application from its slices. Order matters only for the global hooks:
 * request context and error handling come first so that every route is covered.
 */
import { Elysia } from "elysia";
import type { Services } from "../services";
import { setupRoutes } from "./api/setup";
import { errorHandling } from "./errors";
import { healthRoutes } from "./health";
import { requestContext } from "./request-context";

export function createHttpApp(services: Services) {
  return new Elysia()
    .use(requestContext(services.log))
    .use(errorHandling(services.log))
    .use(healthRoutes(services.database))
    .use(setupRoutes(services.users));
}

export type HttpApp = ReturnType<typeof createHttpApp>;
