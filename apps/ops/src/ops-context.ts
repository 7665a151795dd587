import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { ProjectionRunner, createSqlReadModelStore, projectionRegistry } from '@dob/projections';
import { DataDirLockedError, loadAppConfig, openStorage, type Storage } from '@dob/runtime';
import type { SqlExecutor } from '@dob/sql';

/** What every ops command gets: the storage the apps use and a (not started) runner over the registry. */
export interface OpsContext {
  readonly storage: Storage;
  readonly runner: ProjectionRunner<SqlExecutor>;
}

/** A failure the CLI reports as one line and exit code 1 (no stack trace). */
export class OpsError extends Error {
  override readonly name = 'OpsError';
}

/**
 * Connects like the apps do: DATABASE_URL (PostgreSQL) or the embedded PGlite in `<DATA_DIR>/pglite`. PGlite
 * allows one process per folder, so a running `npm start` (its LOCK holds a live pid) makes the CLI refuse.
 */
export async function openOpsContext(): Promise<OpsContext> {
  const config = loadAppConfig('ops');
  let storage: Storage;
  try {
    storage = await openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, catalog: createChainEventCatalog([...walletEvents]) });
  } catch (e) {
    if (e instanceof DataDirLockedError) {
      throw new OpsError(
        `${e.message}\nThe embedded database can only be opened by one process: stop \`npm start\` first, ` +
          `or run the CLI against PostgreSQL with DATABASE_URL.`,
      );
    }
    throw e;
  }
  const runner = new ProjectionRunner(storage.eventStore, createSqlReadModelStore(storage.db), projectionRegistry);
  return { storage, runner };
}

/** Opens the context, runs fn, always closes (releasing the data-folder lock). */
export async function withOpsContext<T>(fn: (ctx: OpsContext) => Promise<T>): Promise<T> {
  const ctx = await openOpsContext();
  try {
    return await fn(ctx);
  } finally {
    await ctx.runner.stop();
    await ctx.storage.close();
  }
}
