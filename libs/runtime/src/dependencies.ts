import type { HealthCheck, HealthRegistry } from './health';
import type { Storage } from './storage';

/** A server an app depends on, as the observability lib's DependencyWatch watches it (kept structural here). */
export interface Dependency {
  readonly probe: () => Promise<unknown>;
  /** The app keeps serving correct answers without it (degraded, 200) instead of reporting down (503). */
  readonly optional?: boolean;
  readonly meanwhile?: string;
}

export interface DependencyWatcher {
  watch(name: string, dependency: Dependency): HealthCheck;
  /** A failure or recovery seen between probes (e.g. by a fail-safe rate limiter). */
  report(name: string, available: boolean, error?: unknown): void;
}

/**
 * The servers behind an app's storage: PostgreSQL (a server database; embedded PGlite cannot go away) and MongoDB
 * when the read models live there. Each becomes a /health component of its own name, so /health says which is away.
 */
export function storageDependencies(storage: Pick<Storage, 'db'>, readModels?: { readonly ping?: () => Promise<unknown> }): Record<string, Dependency> {
  return {
    ...(storage.db.kind === 'postgres' ? { postgresql: { probe: () => storage.db.query('SELECT 1') } } : {}),
    ...(readModels?.ping ? { mongodb: { probe: readModels.ping } } : {}),
  };
}

/** Watches each dependency and registers its /health component under its name. */
export function watchDependencies(health: HealthRegistry, watcher: DependencyWatcher, dependencies: Record<string, Dependency>): void {
  for (const [name, dependency] of Object.entries(dependencies)) health.register(name, watcher.watch(name, dependency));
}
