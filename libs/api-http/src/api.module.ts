import { DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { HealthRegistry } from '@dob/runtime';
import { HealthController } from './health/health.controller';
import type { ApiAuthDependencies } from './access/api-auth.dependencies';
import { authModuleParts } from './auth/auth.module-parts';
import { readApiParts, type ReadApiDependencies } from './read-api.module-parts';
import type { WebhookService } from '@dob/webhooks';
import { webhookApiParts } from './webhooks/webhooks.module-parts';
import type { TradingService } from '@dob/trading';
import { tradingModuleParts } from './trading';
import { eventFeedApiParts, type EventFeedDependencies } from './events/events.module-parts';

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
  /** The agents' event feed (pages + SSE) over the fan-out's feed table (new EventFeed(...) from @dob/webhooks). */
  readonly events?: EventFeedDependencies;
}

@Module({})
export class ApiModule {
  static forRoot(deps: ApiDependencies): DynamicModule {
    const auth = authModuleParts(deps.auth);
    const read = readApiParts(deps.read);
    const webhooks = webhookApiParts(deps.webhooks);
    const trading = tradingModuleParts(deps.trading);
    const events = eventFeedApiParts(deps.events);
    // Controllers turn HTTP into commands and queries; CqrsModule finds each area's @CommandHandler/@QueryHandler
    // providers (the one list: each area's module parts, composed here) and hands the buses their instances.
    const areas = [auth, read, webhooks, trading, events];
    return {
      module: ApiModule,
      imports: [CqrsModule.forRoot()],
      controllers: [HealthController, ...areas.flatMap((a) => a.controllers)],
      providers: [{ provide: HealthRegistry, useValue: deps.health }, ...areas.flatMap((a) => a.providers)],
    };
  }
}
