import { DEFAULT_CATCH_UP_BATCH_SIZE, ProjectionRunner } from '@dob/projections';
import { openReadModelStorage, projectionRegistry, type ReadModelStorage } from '@dob/read-models';
import { DataDirLockedError, loadAppConfig, openAppStorage, type AppConfig, type Storage } from '@dob/runtime';
import { watchDatabase } from './database-watch';

/** What every ops command gets: the storage the apps use and a (not started) runner over the registry. */
export interface OpsContext {
  readonly storage: Storage;
  /** The read models' store (MONGODB_URL, else the SQL database). */
  readonly readModels: ReadModelStorage;
  readonly runner: ProjectionRunner;
  /** The one validated configuration (its KAFKA_* variables for the Kafka commands). */
  readonly config: AppConfig;
}

/** A failure the CLI reports as one line and exit code 1 (no stack trace). */
export class OpsError extends Error {
  override readonly name: string = 'OpsError';
}

/** The embedded database's folder is held by a running system: the commands that can ask it do (operations.ts). */
export class DataFolderInUseError extends OpsError {
  override readonly name = 'DataFolderInUseError';
  constructor(
    message: string,
    readonly dataDir: string,
  ) {
    super(message);
  }
}

/**
 * Connects like the apps do: DATABASE_URL (PostgreSQL) or the embedded PGlite in `<DATA_DIR>/pglite`. PGlite
 * allows one process per folder, so a running `npm start` (its LOCK holds a live pid) makes this refuse; the
 * projection and Kafka commands then ask the running system through its admin endpoint (operations.ts).
 */
export async function openOpsContext(config: AppConfig = loadAppConfig('ops')): Promise<OpsContext> {
  let storage: Storage;
  try {
    storage = await openAppStorage(config);
  } catch (e) {
    if (e instanceof DataDirLockedError) {
      throw new DataFolderInUseError(
        `${e.message}\nThe embedded database can only be opened by one process: stop \`npm start\` first, ` +
          `or run the CLI against PostgreSQL with DATABASE_URL.`,
        config.DATA_DIR,
      );
    }
    throw e;
  }
  let readModels: ReadModelStorage;
  try {
    readModels = await openReadModelStorage({ db: storage.db, mongodbUrl: config.MONGODB_URL });
  } catch (e) {
    await storage.close();
    throw e;
  }
  const runner = new ProjectionRunner(storage.eventStore, readModels.store, projectionRegistry, { catchUpBatchSize: DEFAULT_CATCH_UP_BATCH_SIZE });
  return { storage, readModels, runner, config };
}

/**
 * Opens the context, runs fn, always closes (releasing the data-folder lock). On PostgreSQL a server gone silent
 * meanwhile ends it with an OpsError instead of a wait without end (database-watch.ts); the work left waiting is
 * abandoned with the process (main.ts exits 1), and the server rolls back whatever it had not committed.
 */
export async function withOpsContext<T>(fn: (ctx: OpsContext) => Promise<T>): Promise<T> {
  const config = loadAppConfig('ops');
  const work = async () => {
    const ctx = await openOpsContext(config);
    try {
      return await fn(ctx);
    } finally {
      await ctx.runner.stop();
      await ctx.readModels.close();
      await ctx.storage.close();
    }
  };
  if (!config.DATABASE_URL) return work(); // embedded PGlite: in this process, it cannot go silent
  const watch = watchDatabase(config.DATABASE_URL);
  try {
    return await Promise.race([
      work(),
      watch.silent.then((seconds): never => {
        throw new OpsError(
          `the PostgreSQL server (DATABASE_URL) has not answered for ${seconds} s: gave up. Run the command again once it ` +
            `answers (\`projections status\` shows where things stand; an interrupted rebuild resumes its build).`,
        );
      }),
    ]);
  } finally {
    watch.stop();
  }
}
