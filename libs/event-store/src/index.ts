export * from './event-store.port';
export * from './errors';
export * from './position';
export { createSqlEventStore, type SqlEventStoreOptions } from './sql/sql-event-store';
export type { KurrentDbEventStoreOptions } from './kurrentdb/kurrentdb-event-store';

/** The KurrentDB adapter, loaded only when asked for: its gRPC client costs ~125 ms to load in every process. */
export async function openKurrentDbEventStore(
  connectionString: string,
  options?: import('./kurrentdb/kurrentdb-event-store').KurrentDbEventStoreOptions,
): Promise<import('./event-store.port').EventStore> {
  const { createKurrentDbEventStore } = await import('./kurrentdb/kurrentdb-event-store');
  return createKurrentDbEventStore(connectionString, options);
}
export { migrateEventStore, MIGRATIONS, APPENDED_CHANNEL } from './sql/migrations';
export { startPollingSubscription, type PollingSource, type PollingDefaults } from './polling-subscription';
