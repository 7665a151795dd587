export * from './event-store.port';
export * from './errors';
export * from './position';
export { createSqlEventStore, type SqlEventStoreOptions } from './sql/sql-event-store';
export { migrateEventStore, MIGRATIONS, APPENDED_CHANNEL } from './sql/migrations';
export { startPollingSubscription, type PollingSource, type PollingDefaults } from './polling-subscription';
