import type { Logger, ServiceMetrics } from '@dob/observability';
import type { HealthRegistry, Storage } from '@dob/runtime';

/**
 * What a process gives every app it composes: one storage (its event store instrumented, so every append is timed),
 * one health registry (one /health), one set of metrics and one logger. An app alone has its own; `npm start`
 * (apps/all) shares one set between all the apps it runs.
 */
export interface AppContext {
  readonly storage: Storage;
  readonly health: HealthRegistry;
  readonly metrics: ServiceMetrics;
  readonly log: Logger;
}

/** A started app: what it exposes, and how to stop it (its own parts only; the context is the caller's). */
export interface Started {
  stop(): Promise<void>;
}
