import type { EventStore } from '@dob/event-store';
import type { SqlDatabase } from '@dob/sql';
import { ApiKeyAuthenticator } from '../keys/api-key-authenticator';
import { WalletChallenges } from '../challenge/wallet-challenges';
import { WalletKeyService } from '../wallet/wallet-key.service';
import { migrateAuthTables } from './auth-migrations';
import { SharedKeyCache } from '../keys/shared-key-cache';
import { EmbeddedKeyCache } from './embedded-key-cache';
import { SqlApiKeyIndex } from './sql-api-key-index';
import { SqlChallengeStore } from './sql-challenge-store';
import { SqlKeyChangeSignal } from './sql-key-change-signal';

/** Everything the API's auth needs, over one SQL database (the index and challenges) and the event store. */
export interface AuthComponents {
  readonly challenges: WalletChallenges;
  readonly keys: WalletKeyService;
  readonly authenticator: ApiKeyAuthenticator;
  close(): Promise<void>;
}

export async function createSqlAuth(
  db: SqlDatabase,
  events: EventStore,
  options: { clock?: () => number; lastUsedFlushMs?: number; serviceName?: string } = {},
): Promise<AuthComponents> {
  await migrateAuthTables(db);
  // Lookups are cached everywhere: on embedded PGlite no other process writes keys (EmbeddedKeyCache); on PostgreSQL
  // other instances do, so the cache holds a lease on the key epoch in the same database (SharedKeyCache).
  const index =
    db.kind === 'pglite'
      ? await EmbeddedKeyCache.over(db, new SqlApiKeyIndex(db))
      : await SharedKeyCache.over(new SqlApiKeyIndex(db), new SqlKeyChangeSignal(db));
  const authenticator = new ApiKeyAuthenticator(index, { flushMs: options.lastUsedFlushMs, clock: options.clock });
  return {
    challenges: new WalletChallenges(new SqlChallengeStore(db), options.clock, options.serviceName),
    keys: new WalletKeyService(events, index, { clock: options.clock }),
    authenticator,
    close: async () => {
      await authenticator.close();
      await index.close();
    },
  };
}
