/**
 * The Agent API's HTTP transport (NestJS on Fastify), a library so that the API alone (apps/api) and `npm start`
 * (apps/all) compose the same one without one app importing the other's files.
 */
export { apiHttpSettings, createApiApp, startApi, API_PREFIX, type ApiOptions, type HttpLimits } from './bootstrap';
export { composeApiDependencies, type ApiCompositionOptions } from './compose-api-dependencies';
export { PinoNestLogger } from './logging/pino-nest-logger';
