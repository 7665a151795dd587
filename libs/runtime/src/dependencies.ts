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
 * What an app's storage runs on: PostgreSQL (a server database) or the embedded PGlite, and MongoDB when the read
 * models live there. Each becomes a /health component of its own name, so /health says which is away. PGlite cannot
 * go away, but the apps run it on a thread of its own, which can die (its heap out of memory, an error in it): every
 * call fails from then on and it is not restarted, so /health must say so (503) for the process to be replaced.
 */
export function storageDependencies(storage: Pick<Storage, 'db'>, readModels?: { readonly ping?: () => Promise<unknown> }): Record<string, Dependency> {
  return {
    ...(storage.db.kind === 'postgres' ? { postgresql: { probe: () => storage.db.query('SELECT 1') } } : {}),
    ...(storage.db.failed ? { pglite: { probe: async () => throwIfFailed(storage.db) } } : {}),
    ...(readModels?.ping ? { mongodb: { probe: readModels.ping } } : {}),
  };
}

/** Not a query: on PGlite's one connection a probe would wait behind a long statement and report a live database away. */
function throwIfFailed(db: Pick<Storage['db'], 'failed'>): void {
  const failure = db.failed?.();
  if (failure) throw failure;
}

/** Watches each dependency and registers its /health component under its name. */
export function watchDependencies(health: HealthRegistry, watcher: DependencyWatcher, dependencies: Record<string, Dependency>): void {
  for (const [name, dependency] of Object.entries(dependencies)) health.register(name, watcher.watch(name, dependency));
}
