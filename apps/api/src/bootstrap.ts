import { Logger, Module, RequestMethod, type DynamicModule, type INestApplication, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ApiModule, type ApiDependencies } from './api.module';
import { installRequestGate } from './auth/request-gate';
import { EnvelopeErrorFilter } from './http/error.filter';
import { createValidationPipe } from './http/validation.pipe';

export const API_PREFIX = 'api/agent';

@Module({})
class ComposedApiModule {}

export interface ApiOptions {
  readonly port: number;
  readonly host?: string;
  readonly logger?: boolean;
}

/** Builds the Fastify-backed Nest app: `/api/agent/*`, `/health`, OpenAPI at `/api/agent/openapi.json` and `/docs`. */
export async function createApiApp(
  deps: ApiDependencies,
  options: { logger?: boolean; /** Feature modules composed beside ApiModule (e.g. a probe controller in tests). */ modules?: (Type | DynamicModule)[] } = {},
): Promise<NestFastifyApplication> {
  const root: DynamicModule = options.modules?.length
    ? { module: ComposedApiModule, imports: [ApiModule.forRoot(deps), ...options.modules] }
    : ApiModule.forRoot(deps);
  const app = await NestFactory.create<NestFastifyApplication>(
    root,
    new FastifyAdapter({ bodyLimit: 256 * 1024 }),
    { logger: options.logger === false ? false : ['error', 'warn', 'log'], abortOnError: false },
  );
  // Rate limits and X-API-Key authentication run before routing, so unknown routes carry the headers too.
  if (deps.auth) installRequestGate(app.getHttpAdapter().getInstance(), deps.auth, `/${API_PREFIX}`);
  app.setGlobalPrefix(API_PREFIX, { exclude: [{ path: 'health', method: RequestMethod.GET }] });
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
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: `${API_PREFIX}/openapi.json` });
}

export async function startApi(deps: ApiDependencies, options: ApiOptions): Promise<NestFastifyApplication> {
  const app = await createApiApp(deps, { logger: options.logger });
  await app.listen(options.port, options.host ?? '0.0.0.0');
  new Logger('api').log(`Agent API listening on http://localhost:${options.port}/${API_PREFIX}`);
  return app;
}
