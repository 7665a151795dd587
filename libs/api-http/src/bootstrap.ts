import { Logger, Module, RequestMethod, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import type { Logger as PinoLogger, ServiceMetrics } from '@dob/observability';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@dob/runtime';
import { ApiModule, type ApiDependencies } from './api.module';
import { installRequestGate } from './access/request-gate';
import { EnvelopeErrorFilter } from './http/error.filter';
import { createValidationPipe } from './http/validation.pipe';
import { documentErrorResponses } from './http/openapi-errors';
import { hardenedFastifyOptions, installJsonBodyParser, installNulGuard, installRequestId } from './http/http-hardening';
import { installRequestObserver } from './http/request-observer';
import { capConnectionsPerClient, DEFAULT_HTTP_LIMITS, type HttpLimits } from './http/connection-limits';
import { mountMetrics } from './http/metrics-route';
import { installReadResponseCache } from './http/read-response-cache';
import { PinoNestLogger } from './logging/pino-nest-logger';

export const API_PREFIX = 'api/agent';
export type { HttpLimits };

@Module({})
class ComposedApiModule {}

export interface ApiOptions {
  readonly port: number;
  readonly host?: string;
  /** JSON logs (pino): Fastify's request loggers and Nest's Logger write through it; unset = no logs. */
  readonly log?: PinoLogger;
  /** HTTP series are recorded into it and GET /metrics renders it (with metricsToken); unset = no /metrics. */
  readonly metrics?: ServiceMetrics;
  /** Bearer token GET /metrics asks for on the API port; unset = /metrics is not served there (METRICS_PORT is). */
  readonly metricsToken?: string;
  /** Timeouts, connections per client, trusted proxies; default DEFAULT_HTTP_LIMITS. */
  readonly http?: HttpLimits;
}

export interface ApiAppOptions {
  /** false: no logs at all (tests). */
  readonly logger?: boolean;
  readonly log?: PinoLogger;
  readonly metrics?: ServiceMetrics;
  readonly metricsToken?: string;
  readonly http?: HttpLimits;
  /** Feature modules composed beside ApiModule (e.g. a probe controller in tests). */
  readonly modules?: (Type | DynamicModule)[];
}

/**
 * Builds the Fastify-backed Nest app: `/api/agent/*`, `/health` (readiness), `/health/live` (liveness), `/metrics`
 * (behind a bearer token, only when one is given), OpenAPI at `/api/agent/openapi.json` and `/docs`.
 */
export async function createApiApp(deps: ApiDependencies, options: ApiAppOptions = {}): Promise<NestFastifyApplication> {
  const root: DynamicModule = options.modules?.length
    ? { module: ComposedApiModule, imports: [ApiModule.forRoot(deps), ...options.modules] }
    : ApiModule.forRoot(deps);
  const log = options.logger === false ? undefined : options.log;
  const limits = options.http ?? DEFAULT_HTTP_LIMITS;
  const app = await NestFactory.create<NestFastifyApplication>(
    root,
    // Fastify's own per-request lines are off: installRequestObserver writes one line per request instead.
    new FastifyAdapter({
      ...hardenedFastifyOptions(limits),
      ...(log ? { loggerInstance: log, logController: new LogController({ disableRequestLogging: true }) } : {}),
    }),
    // bodyParser false: installJsonBodyParser is the only body parser (JSON, depth-limited).
    { logger: log ? new PinoNestLogger(log) : options.logger === false ? false : ['error', 'warn', 'log'], abortOnError: false, bodyParser: false },
  );
  const fastify = app.getHttpAdapter().getInstance();
  capConnectionsPerClient(app.getHttpServer(), limits);
  installRequestId(fastify);
  // Nothing to observe into without a logger or metrics (tests, benches): no hooks, no log context per request.
  if (log || options.metrics) installRequestObserver(fastify, options.metrics);
  installJsonBodyParser(fastify);
  installNulGuard(fastify);
  // Rate limits and X-API-Key authentication run before routing, so unknown routes carry the headers too.
  if (deps.auth) installRequestGate(fastify, deps.auth, `/${API_PREFIX}`, options.metrics);
  if (options.metrics && options.metricsToken) mountMetrics(fastify, options.metrics, options.metricsToken);
  if (deps.read?.changes) installReadResponseCache(fastify, { changes: deps.read.changes });
  app.setGlobalPrefix(API_PREFIX, {
    exclude: [
      { path: 'health', method: RequestMethod.GET },
      { path: 'health/live', method: RequestMethod.GET },
    ],
  });
  app.useGlobalFilters(new EnvelopeErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  // No app.enableShutdownHooks(): the composition roots own SIGINT/SIGTERM (runApp) and close the app in order.
  // Nest's hooks closed it concurrently and re-raised the signal, killing the process mid-stop (PGlite not closed,
  // the data folder's LOCK left behind).
  mountOpenApi(app);
  return app;
}

function mountOpenApi(app: INestApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Agent API')
    .setDescription('Pool discovery, share marketplace, crowdfunding and webhooks for agents (prepare → sign → submit).')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, 'api-key')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'jwt')
    .build();
  const document = documentErrorResponses(SwaggerModule.createDocument(app, config));
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: `${API_PREFIX}/openapi.json` });
}

/** The API's HTTP settings from the one configuration (apps/api alone and npm start). */
export function apiHttpSettings(config: AppConfig): { readonly http: HttpLimits; readonly metricsToken?: string } {
  return {
    http: {
      requestTimeoutMs: config.API_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: config.API_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: config.API_KEEP_ALIVE_TIMEOUT_MS,
      connectionsPerClient: config.API_CONNECTIONS_PER_CLIENT,
      trustedProxies: config.API_TRUSTED_PROXIES,
    },
    metricsToken: config.METRICS_TOKEN,
  };
}

export async function startApi(deps: ApiDependencies, options: ApiOptions): Promise<NestFastifyApplication> {
  const app = await createApiApp(deps, {
    log: options.log,
    metrics: options.metrics,
    metricsToken: options.metricsToken,
    http: options.http,
    logger: options.log !== undefined,
  });
  await app.listen(options.port, options.host ?? '0.0.0.0');
  new Logger('api').log(`Agent API listening on http://localhost:${options.port}/${API_PREFIX}`);
  return app;
}
