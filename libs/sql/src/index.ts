export * from './sql.port';
export * from './identifier';
export * from './copy-text';
export * from './pglite/pglite-database';
export * from './postgres/postgres-database';
export * from './postgres/end-client';
export * from './migrate';
export * from './pglite/pglite-worker-database';
