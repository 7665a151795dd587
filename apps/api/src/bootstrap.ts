import { Logger, Module, RequestMethod, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import type { Logger as PinoLogger, ServiceMetrics } from '@dob/observability';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyInstance } from 'fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ApiModule, type ApiDependencies } from './api.module';
import { installRequestGate } from './auth/request-gate';
import { EnvelopeErrorFilter } from './http/error.filter';
import { createValidationPipe } from './http/validation.pipe';
import { documentErrorResponses } from './http/openapi-errors';
import { hardenedFastifyOptions, installJsonBodyParser, installNulGuard, installRequestId } from './http/http-hardening';
import { installRequestObserver } from './http/request-observer';
import { installReadResponseCache } from './http/read-response-cache';
import { PinoNestLogger } from './logging/pino-nest-logger';

export const API_PREFIX = 'api/agent';

@Module({})
class ComposedApiModule {}

export interface ApiOptions {
  readonly port: number;
  readonly host?: string;
  /** JSON logs (pino): Fastify's request loggers and Nest's Logger write through it; unset = no logs. */
  readonly log?: PinoLogger;
  /** HTTP series are recorded into it and GET /metrics renders it; unset = no /metrics. */
  readonly metrics?: ServiceMetrics;
}

export interface ApiAppOptions {
  /** false: no logs at all (tests). */
  readonly logger?: boolean;
  readonly log?: PinoLogger;
  readonly metrics?: ServiceMetrics;
  /** Feature modules composed beside ApiModule (e.g. a probe controller in tests). */
  readonly modules?: (Type | DynamicModule)[];
}

/**
 * Builds the Fastify-backed Nest app: `/api/agent/*`, `/health` (readiness), `/health/live` (liveness), `/metrics`,
 * OpenAPI at `/api/agent/openapi.json` and `/docs`.
 */
export async function createApiApp(deps: ApiDependencies, options: ApiAppOptions = {}): Promise<NestFastifyApplication> {
  const root: DynamicModule = options.modules?.length
    ? { module: ComposedApiModule, imports: [ApiModule.forRoot(deps), ...options.modules] }
    : ApiModule.forRoot(deps);
  const log = options.logger === false ? undefined : options.log;
  const app = await NestFactory.create<NestFastifyApplication>(
    root,
    // Fastify's own per-request lines are off: installRequestObserver writes one line per request instead.
    new FastifyAdapter({
      ...hardenedFastifyOptions(),
      ...(log ? { loggerInstance: log, logController: new LogController({ disableRequestLogging: true }) } : {}),
    }),
    // bodyParser false: installJsonBodyParser is the only body parser (JSON, depth-limited).
    { logger: log ? new PinoNestLogger(log) : options.logger === false ? false : ['error', 'warn', 'log'], abortOnError: false, bodyParser: false },
  );
  const fastify = app.getHttpAdapter().getInstance();
  installRequestId(fastify);
  installRequestObserver(fastify, options.metrics);
  installJsonBodyParser(fastify);
  installNulGuard(fastify);
  // Rate limits and X-API-Key authentication run before routing, so unknown routes carry the headers too.
  if (deps.auth) installRequestGate(fastify, deps.auth, `/${API_PREFIX}`, options.metrics);
  if (options.metrics) mountMetrics(fastify, options.metrics);
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

/** GET /metrics: Prometheus text format, outside /api/agent (no API key; scrape it from the operators' network). */
function mountMetrics(fastify: FastifyInstance, metrics: ServiceMetrics): void {
  fastify.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await metrics.render();
    return reply.header('content-type', contentType).send(body);
  });
}

export async function startApi(deps: ApiDependencies, options: ApiOptions): Promise<NestFastifyApplication> {
  const app = await createApiApp(deps, { log: options.log, metrics: options.metrics, logger: options.log !== undefined });
  await app.listen(options.port, options.host ?? '0.0.0.0');
  new Logger('api').log(`Agent API listening on http://localhost:${options.port}/${API_PREFIX}`);
  return app;
}
