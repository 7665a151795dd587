import type { EventStore } from '@dob/event-store';
import type { SqlDatabase } from '@dob/sql';
import { ApiKeyAuthenticator } from '../keys/api-key-authenticator';
import { WalletChallenges } from '../challenge/wallet-challenges';
import { WalletKeyService } from '../wallet/wallet-key.service';
import { migrateAuthTables } from './auth-migrations';
import type { KeyChangeSignal } from '../keys/key-change-signal.port';
import { SharedKeyCache } from '../keys/shared-key-cache';
import { API_KEYS_CHANGED, EmbeddedKeyCache } from './embedded-key-cache';
import { SqlApiKeyIndex } from './sql-api-key-index';
import { SqlChallengeStore } from './sql-challenge-store';

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
  options: {
    clock?: () => number;
    lastUsedFlushMs?: number;
    serviceName?: string;
    /** On a database other instances write: cache lookups, validated by this signal's epoch (SharedKeyCache). */
    keyChanges?: KeyChangeSignal;
  } = {},
): Promise<AuthComponents> {
  await migrateAuthTables(db);
  // Lookups are cached on embedded PGlite, where no other process writes keys (EmbeddedKeyCache), and where a shared
  // epoch is checked on every request (SharedKeyCache); otherwise every request reads the index.
  const shared = options.keyChanges && db.kind !== 'pglite' ? await SharedKeyCache.over(new SqlApiKeyIndex(db), options.keyChanges) : undefined;
  const index = shared ?? (await EmbeddedKeyCache.over(db, new SqlApiKeyIndex(db)));
  // Every SQL index write also NOTIFYs; a writer that could not announce (e.g. ops without REDIS_URL) still empties
  // shared caches soon after its commit. Only the epoch makes it immediate.
  const unlisten = shared ? await db.listen(API_KEYS_CHANGED, () => shared.adoptEpoch(null)).catch(() => undefined) : undefined;
  const authenticator = new ApiKeyAuthenticator(index, { flushMs: options.lastUsedFlushMs, clock: options.clock });
  return {
    challenges: new WalletChallenges(new SqlChallengeStore(db), options.clock, options.serviceName),
    keys: new WalletKeyService(events, index, { clock: options.clock }),
    authenticator,
    close: async () => {
      await authenticator.close();
      await unlisten?.();
      await index.close();
    },
  };
}
