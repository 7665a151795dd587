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
import { BusBindings, MESSAGE_BINDINGS } from './cqrs/bus-bindings';
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
    // Controllers turn HTTP into commands and queries; the buses carry them to the libs' handlers (cqrs/bus-bindings.ts).
    const bindings = [...auth.bindings, ...read.bindings, ...webhooks.bindings, ...trading.bindings, ...events.bindings];
    return {
      module: ApiModule,
      imports: [CqrsModule.forRoot()],
      controllers: [HealthController, ...auth.controllers, ...read.controllers, ...webhooks.controllers, ...trading.controllers, ...events.controllers],
      providers: [
        { provide: HealthRegistry, useValue: deps.health },
        { provide: MESSAGE_BINDINGS, useValue: bindings },
        BusBindings,
        ...auth.providers,
        ...read.providers,
        ...webhooks.providers,
        ...trading.providers,
        ...events.providers,
      ],
    };
  }
}
