/**
 * Assembles the HTTP application from its slices. Order matters only for the global hooks:
 * request context and error handling come first so that every route is covered.
 */
import { Elysia } from "elysia";
import type { Services } from "../services";
import { apiKeyRoutes } from "./api/api-keys";
import { authRoutes } from "./api/auth";
import { oidcRoutes } from "./api/oidc";
import { bookRoutes } from "./api/books";
import { duplicateRoutes } from "./api/duplicates";
import { libraryRoutes } from "./api/libraries";
import { maintenanceRoutes } from "./api/maintenance";
import { metricsRoutes } from "./api/metrics";
import { scanStreamRoutes } from "./api/scan-stream";
import { setupRoutes } from "./api/setup";
import { sharingTagRoutes } from "./api/sharing-tags";
import { userRoutes } from "./api/users";
import { bookFileRoutes } from "./api/book-files";
import { bookPageRoutes } from "./api/book-pages";
import { coverRoutes } from "./api/covers";
import { progressRoutes } from "./api/progress";
import { readerSettingsRoutes } from "./api/reader-settings";
import { publicationRoutes } from "./api/publications";
import { seriesRoutes } from "./api/series";
import { lockedFieldRoutes } from "./api/locked-fields";
import { readingListRoutes } from "./api/reading-lists";
import { komgaRoutes } from "./komga/routes";
import { opdsRoutes } from "./opds/routes";
import { koreaderRoutes } from "./koreader/routes";
import { koreaderKeyRoutes } from "./api/koreader-key";
import { errorHandling } from "./errors";
import { healthRoutes } from "./health";
import { httpMetrics } from "./metrics-hook";
import { apiDocumentation } from "./openapi";
import { boundedRequestBodies } from "./request-body";
import { htmlErrorPages, webRoutes } from "./web";
import { accessLog, requestContext } from "./request-context";
import { securityHeaders } from "./security-headers";

export function createHttpApp(services: Services) {
  const requestBodies = boundedRequestBodies(services);
  const app = new Elysia()
    .use(securityHeaders(services.config.application))
    .use(requestContext([accessLog(services.log), httpMetrics(services.metrics)]))
    .use(errorHandling(services.log, htmlErrorPages(services.config.komga_api.prefix, services.config.application.default_locale), services.config.application))
    .use(requestBodies.plugin)
    .use(apiDocumentation())
    .use(healthRoutes(services.database))
    .use(setupRoutes(services.users))
    .use(authRoutes(services))
    .use(oidcRoutes(services))
    .use(userRoutes(services))
    .use(apiKeyRoutes(services))
    .use(libraryRoutes(services))
    .use(scanStreamRoutes(services))
    .use(bookRoutes(services))
    .use(duplicateRoutes(services))
    .use(maintenanceRoutes(services))
    .use(sharingTagRoutes(services))
    .use(metricsRoutes(services))
    .use(seriesRoutes(services))
    .use(lockedFieldRoutes(services))
    .use(readingListRoutes(services))
    .use(bookPageRoutes(services))
    .use(bookFileRoutes(services))
    .use(coverRoutes(services))
    .use(progressRoutes(services))
    .use(readerSettingsRoutes(services))
    .use(publicationRoutes(services))
    .use(koreaderKeyRoutes(services))
    .use(opdsRoutes(services))
    .use(koreaderRoutes(services))
    .use(komgaRoutes(services))
    .use(webRoutes(services));
  requestBodies.learnRoutes(app.routes);
  return app;
}
