import { DynamicModule, Module } from '@nestjs/common';
import { HealthRegistry } from '@dob/runtime';
import { HealthController } from './health/health.controller';
import type { ApiAuthDependencies } from './auth/api-auth.dependencies';
import { authModuleParts } from './auth/auth.module-parts';
import { readApiParts, type ReadApiDependencies } from './pools/read-api.module-parts';
import type { WebhookService } from '@dob/webhooks';
import { webhookApiParts } from './webhooks/webhooks.module-parts';
import type { TradingService } from '@dob/trading';
import { tradingModuleParts } from './trading';

/**
 * What the API needs from the process that hosts it. The all-in-one entry and the standalone API main build these
 * from config (PGlite or PostgreSQL, devnet or a real RPC) and hand them in: the module itself opens nothing.
 */
export interface ApiDependencies {
  readonly health: HealthRegistry;
  /** Wallet auth, API keys and rate limits (createApiAuth). Without it, @RequireScope routes refuse every call. */
  readonly auth?: ApiAuthDependencies;
  /** Read models' query services (createReadQueries from @dob/read-models): pools, marketplace reads, portfolio. */
  readonly read?: ReadApiDependencies;
  /** Webhook management (createWebhookComponents(...).service from @dob/webhooks). */
  readonly webhooks?: WebhookService;
  /** Prepare → sign → submit for marketplace and crowdfunding (new TradingService(...) from @dob/trading). */
  readonly trading?: TradingService;
}

@Module({})
export class ApiModule {
  static forRoot(deps: ApiDependencies): DynamicModule {
    const auth = authModuleParts(deps.auth);
    const read = readApiParts(deps.read);
    const webhooks = webhookApiParts(deps.webhooks);
    const trading = tradingModuleParts(deps.trading);
    return {
      module: ApiModule,
      controllers: [HealthController, ...auth.controllers, ...read.controllers, ...webhooks.controllers, ...trading.controllers],
      providers: [{ provide: HealthRegistry, useValue: deps.health }, ...auth.providers, ...read.providers, ...webhooks.providers, ...trading.providers],
    };
  }
}
