import { DynamicModule, Module } from '@nestjs/common';
import { HealthRegistry } from '@dob/runtime';
import { HealthController } from './health/health.controller';

/**
 * What the API needs from the process that hosts it. The all-in-one entry and the standalone API main build these
 * from config (PGlite or PostgreSQL, devnet or a real RPC) and hand them in: the module itself opens nothing.
 */
export interface ApiDependencies {
  readonly health: HealthRegistry;
}

@Module({})
export class ApiModule {
  static forRoot(deps: ApiDependencies): DynamicModule {
    return {
      module: ApiModule,
      controllers: [HealthController],
      providers: [{ provide: HealthRegistry, useValue: deps.health }],
    };
  }
}
