import { DynamicModule, Module } from '@nestjs/common';
import { HealthRegistry } from '@dob/runtime';
import { HealthController } from './health/health.controller';
import type { ApiAuthDependencies } from './auth/api-auth.dependencies';
import { authModuleParts } from './auth/auth.module-parts';
import type { WebhookService } from '@dob/webhooks';
import { webhookApiParts } from './webhooks/webhooks.module-parts';

/**
 * What the API needs from the process that hosts it. The all-in-one entry and the standalone API main build these
 * from config (PGlite or PostgreSQL, devnet or a real RPC) and hand them in: the module itself opens nothing.
 */
export interface ApiDependencies {
  readonly health: HealthRegistry;
  /** Wallet auth, API keys and rate limits (createApiAuth). Without it, @RequireScope routes refuse every call. */
  readonly auth?: ApiAuthDependencies;
  /** Webhook management (createWebhookComponents(...).service from @dob/webhooks). */
  readonly webhooks?: WebhookService;
}

@Module({})
export class ApiModule {
  static forRoot(deps: ApiDependencies): DynamicModule {
    const auth = authModuleParts(deps.auth);
    const webhooks = webhookApiParts(deps.webhooks);
    return {
      module: ApiModule,
      controllers: [HealthController, ...auth.controllers, ...webhooks.controllers],
      providers: [{ provide: HealthRegistry, useValue: deps.health }, ...auth.providers, ...webhooks.providers],
    };
  }
}
