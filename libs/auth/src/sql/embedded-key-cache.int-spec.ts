import { Keypair } from '@stellar/stellar-sdk';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { ApiKeyAuthenticator } from '../keys/api-key-authenticator';
import type { ActiveApiKey } from '../keys/api-key-index.port';
import { generateApiKey, hashApiKey } from '../keys/api-key';
import { WalletKeyService } from '../wallet/wallet-key.service';
import { walletEvents } from '../wallet/wallet.events';
import { migrateAuthTables } from './auth-migrations';
import { EmbeddedKeyCache } from './embedded-key-cache';
import { SqlApiKeyIndex } from './sql-api-key-index';

/** The SQL index, counting its lookups. */
class CountingIndex extends SqlApiKeyIndex {
  lookups = 0;
  onLookup?: () => Promise<void>;
  override async findActiveByHash(keyHash: string): Promise<ActiveApiKey | null> {
    this.lookups++;
    const r = await super.findActiveByHash(keyHash);
    await this.onLookup?.();
    return r;
  }
}

/**
 * The database, except that the next key write armed by `loseNextKeyWriteReply` is applied and then fails, as when
 * its reply is lost: the statement committed, and nothing after it in the same call (the NOTIFY) ran.
 */
function withLostKeyWriteReply(db: SqlDatabase): SqlDatabase & { loseNextKeyWriteReply(): void } {
  let armed = false;
  return Object.assign(Object.create(db) as SqlDatabase, {
    async query<R>(text: string, params?: readonly unknown[]) {
      const result = await db.query<R>(text, params);
      if (armed && text.includes('auth_key_epoch')) {
        armed = false;
        throw new Error('connection lost after the key write was applied');
      }
      return result;
    },
    loseNextKeyWriteReply() {
      armed = true;
    },
  });
}

describe.each(testDatabases())('EmbeddedKeyCache on $name', (factory) => {
  let db: SqlDatabase;
  let events: EventStore;
  let index: CountingIndex;
  let cache: EmbeddedKeyCache;
  let keys: WalletKeyService;
  let authenticator: ApiKeyAuthenticator;

  beforeAll(async () => {
    db = await factory.create();
    events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    await migrateAuthTables(db);
    index = new CountingIndex(db);
    cache = await EmbeddedKeyCache.over(db, index);
    keys = new WalletKeyService(events, cache);
    authenticator = new ApiKeyAuthenticator(cache, { flushMs: 60_000 });
  });
  afterAll(async () => {
    await authenticator.close();
    await cache.close();
    await events.close();
    await db.close();
  });

  it(factory.name === 'pglite' ? 'caches lookups on embedded PGlite' : 'does not cache on PostgreSQL (other instances write)', async () => {
    const wallet = Keypair.random().publicKey();
    const { key } = await keys.createKey(wallet, { label: 'a', scopes: ['read'], origin: 'key_management' });
    const before = index.lookups;
    for (let i = 0; i < 5; i++) expect((await authenticator.authenticate(key))?.wallet).toBe(wallet);
    expect(cache.caching).toBe(factory.name === 'pglite');
    expect(index.lookups - before).toBe(factory.name === 'pglite' ? 1 : 5);
  });

  it('refuses a revoked or rotated-away key on the very next lookup, and finds a key created after a miss', async () => {
    const wallet = Keypair.random().publicKey();
    const created = await keys.createKey(wallet, { label: 'a', scopes: ['read'], origin: 'key_management' });
    expect(await authenticator.authenticate(created.key)).not.toBeNull();
    const rotated = await keys.rotateKey(wallet, created.record.keyId);
    expect(await authenticator.authenticate(created.key)).toBeNull();
    expect((await authenticator.authenticate(rotated.key))?.keyId).toBe(created.record.keyId);
    await keys.setRateLimit(created.record.keyId, 300);
    expect((await authenticator.authenticate(rotated.key))?.rateLimitRpm).toBe(300);
    await keys.revokeKey(wallet, created.record.keyId);
    expect(await authenticator.authenticate(rotated.key)).toBeNull();

    // An unknown key is remembered as unknown until any key changes.
    const issued = generateApiKey();
    expect(await cache.findActiveByHash(issued.hash)).toBeNull();
    await db.query(`INSERT INTO auth_api_keys (key_id, wallet, key_hash, scopes, rate_limit_rpm, revision) VALUES ($1, $2, $3, '["read"]', 60, 1)`, [
      `k_${issued.last4}`,
      wallet,
      issued.hash,
    ]);
    await index.project(wallet, 0, []); // no keys to write; not a change
    await keys.createKey(wallet, { label: 'b', scopes: ['read'], origin: 'key_management' }); // a change: notifies
    expect((await cache.findActiveByHash(hashApiKey(issued.key)))?.wallet).toBe(wallet);
  });

  it('does not store a lookup that was in flight when a change was notified', async () => {
    const wallet = Keypair.random().publicKey();
    const created = await keys.createKey(wallet, { label: 'a', scopes: ['read'], origin: 'key_management' });
    cache.invalidate();
    // The lookup reads the active key, then (before it returns) the key is revoked.
    index.onLookup = async () => {
      index.onLookup = undefined;
      await keys.revokeKey(wallet, created.record.keyId);
    };
    expect(await authenticator.authenticate(created.key)).not.toBeNull(); // read before the revoke
    expect(await authenticator.authenticate(created.key)).toBeNull();
  });

  /** A second cache over the same database whose key writes can lose their reply; `run` gets its service and guard. */
  async function withLossyCache(run: (keys: WalletKeyService, guard: ApiKeyAuthenticator, loseNextReply: () => void) => Promise<void>) {
    const lossy = withLostKeyWriteReply(db);
    const lossyCache = await EmbeddedKeyCache.over(db, new SqlApiKeyIndex(lossy));
    const guard = new ApiKeyAuthenticator(lossyCache, { flushMs: 60_000 });
    try {
      await run(new WalletKeyService(events, lossyCache), guard, () => lossy.loseNextKeyWriteReply());
    } finally {
      await guard.close();
      await lossyCache.close();
    }
  }

  it('a revoke whose suspend applied but did not answer (no NOTIFY followed): the suspended key is refused', async () => {
    await withLossyCache(async (lossyKeys, guard, loseNextReply) => {
      const wallet = Keypair.random().publicKey();
      const created = await lossyKeys.createKey(wallet, { label: 'a', scopes: ['read'], origin: 'key_management' });
      expect(await guard.authenticate(created.key)).not.toBeNull(); // cached
      loseNextReply();
      await expect(lossyKeys.revokeKey(wallet, created.record.keyId)).rejects.toThrow('connection lost');
      expect(await index.findActiveByHash(created.record.keyHash)).toBeNull(); // the index refuses it now
      expect(await guard.authenticate(created.key)).toBeNull();
    });
  });

  it('a tier change whose projection applied but did not answer: the cache serves the new rate limit', async () => {
    await withLossyCache(async (lossyKeys, guard, loseNextReply) => {
      const wallet = Keypair.random().publicKey();
      const created = await lossyKeys.createKey(wallet, { label: 'a', scopes: ['read'], origin: 'key_management' });
      expect((await guard.authenticate(created.key))?.rateLimitRpm).toBe(60); // cached
      loseNextReply();
      await expect(lossyKeys.setRateLimit(created.record.keyId, 1000)).rejects.toThrow('connection lost');
      expect((await index.findActiveByHash(created.record.keyHash))?.rateLimitRpm).toBe(1000); // event and row written
      expect((await guard.authenticate(created.key))?.rateLimitRpm).toBe(1000);
    });
  });
});
