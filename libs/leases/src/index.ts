export * from './lease.port';
export * from './sql-lease-store';
export * from './lease-keeper';
