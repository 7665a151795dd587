import { join, resolve } from 'node:path';
import type { EventCatalog } from '@dob/domain';
import { createSqlEventStore, openKurrentDbEventStore, type EventStore } from '@dob/event-store';
import { createPgliteWorkerDatabase, createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import type { AppConfig } from './app-config';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock';
import { systemEventCatalog } from './system-event-catalog';

export interface Storage {
  readonly db: SqlDatabase;
  readonly eventStore: EventStore;
  /** Where the embedded data lives (PGlite, devnet chain, key files). */
  readonly dataDir: string;
  close(): Promise<void>;
}

export interface StorageOptions {
  readonly dataDir: string;
  /**
   * PostgreSQL server; unset = embedded PGlite under `<dataDir>/pglite`, on a thread of its own (its WebAssembly
   * PostgreSQL beside the process's JavaScript, not between it: docs/ARCHITECTURE.md).
   */
  readonly databaseUrl?: string;
  /** EventStoreDB / KurrentDB for the event store; unset = the event store lives in the SQL database. */
  readonly eventStoreUrl?: string;
  readonly catalog: EventCatalog;
  /** Lock the data folder (always for PGlite; the all-in-one also keeps the devnet chain there). */
  readonly lockDataDir?: boolean;
}

/**
 * Opens the storage every app composes: the SQL database (PGlite embedded, or PostgreSQL from DATABASE_URL) and the
 * event store — over the same database, or on KurrentDB when EVENTSTORE_URL names one. Embedded PGlite has no lock of its own, so its folder is locked first.
 */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  const dataDir = resolve(options.dataDir);
  let lock: DataDirLock | undefined;
  if (options.lockDataDir ?? !options.databaseUrl) lock = acquireDataDirLock(dataDir);
  try {
    const db = options.databaseUrl
      ? await createPostgresDatabase({ connectionString: options.databaseUrl })
      : await createPgliteWorkerDatabase({ dataDir: join(dataDir, 'pglite') });
    const eventStore = options.eventStoreUrl
      ? await openKurrentDbEventStore(options.eventStoreUrl, { catalog: options.catalog })
      : await createSqlEventStore(db, { catalog: options.catalog });
    return {
      db,
      eventStore,
      dataDir,
      close: async () => {
        await eventStore.close();
        await db.close();
        lock?.release();
      },
    };
  } catch (e) {
    lock?.release();
    throw e;
  }
}

/** `openStorage` from an app's validated configuration: the same three variables in every app, the system's catalog by default. */
export function openAppStorage(
  config: Pick<AppConfig, 'DATA_DIR' | 'DATABASE_URL' | 'EVENTSTORE_URL'>,
  catalog: EventCatalog = systemEventCatalog(),
): Promise<Storage> {
  return openStorage({ dataDir: config.DATA_DIR, databaseUrl: config.DATABASE_URL, eventStoreUrl: config.EVENTSTORE_URL, catalog });
}
