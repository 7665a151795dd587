import { LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import type { SqlDatabase } from '@dob/sql';
import { ConfigError, type AppConfig, type AppName } from './app-config';

/**
 * The lease keeper of an app alone on a server database, where several copies may run (docs/ARCHITECTURE.md,
 * "Production topology"); the caller claims its work, then starts it. On embedded PGlite the data folder's LOCK
 * already makes this process the only one, so there are no leases: every piece of work simply runs here.
 */
export function appLeases(
  app: AppName,
  db: SqlDatabase,
  config: Pick<AppConfig, 'LEASE_DURATION_MS' | 'LEASE_HEARTBEAT_MS'>,
  log?: (line: string) => void,
  onChange?: (change: 'acquired' | 'lost', work: string) => void,
): LeaseKeeper | undefined {
  if (db.kind === 'pglite') return undefined;
  if (config.LEASE_HEARTBEAT_MS >= config.LEASE_DURATION_MS) {
    throw new ConfigError(
      `invalid configuration: LEASE_HEARTBEAT_MS (${config.LEASE_HEARTBEAT_MS}) must be below LEASE_DURATION_MS (${config.LEASE_DURATION_MS})`,
    );
  }
  return new LeaseKeeper(
    createSqlLeaseStore(db),
    leaseOwner(app),
    { durationMs: config.LEASE_DURATION_MS, heartbeatMs: config.LEASE_HEARTBEAT_MS },
    log,
    onChange,
  );
}
