import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import type { KeyChangeSignal } from './key-change-signal.port';
import { SharedKeyCache } from './shared-key-cache';

/** The index's rows in memory, counting reads. */
class FakeIndex implements ApiKeyIndex {
  readonly rows = new Map<string, ActiveApiKey>();
  reads = 0;
  beforeReturn?: () => void;
  async findActiveByHash(hash: string) {
    this.reads++;
    const row = this.rows.get(hash) ?? null;
    this.beforeReturn?.();
    return row;
  }
  async findWalletOfKey() {
    return null;
  }
  async project() {}
  async suspend(keyId: string) {
    for (const [h, k] of this.rows) if (k.keyId === keyId) this.rows.delete(h);
  }
  async recordLastUsed() {}
  async lastUsed() {
    return new Map<string, Date>();
  }
}

/** The shared epoch as Redis would hold it; notifications are delivered only when `deliver` is on. */
class FakeSignal implements KeyChangeSignal {
  epoch = 'e0';
  deliver = true;
  private listener?: (epoch: string | null) => void;
  private n = 0;
  async announce() {
    this.epoch = `e${++this.n}`;
    if (this.deliver) this.listener?.(this.epoch);
  }
  async listen(onEpoch: (epoch: string | null) => void) {
    this.listener = onEpoch;
    return async () => undefined;
  }
  reconnect() {
    this.listener?.(null);
  }
}

const key: ActiveApiKey = { keyId: 'ak_1', wallet: 'G1', scopes: ['read'], rateLimitRpm: 60 };

describe('SharedKeyCache', () => {
  let index: FakeIndex;
  let signal: FakeSignal;
  let cache: SharedKeyCache;
  /** What the request gate does: stamp, look up, then confirm with the epoch the limiter read. */
  const request = async (hash: string) => {
    const stamp = cache.cacheStamp();
    const found = await cache.findActiveByHash(hash);
    return cache.confirmCache(stamp, signal.epoch) ? found : cache.findActiveByHash(hash);
  };

  beforeEach(async () => {
    index = new FakeIndex();
    index.rows.set('h1', key);
    signal = new FakeSignal();
    cache = await SharedKeyCache.over(index, signal);
  });

  it('serves a known key from memory once an epoch is known', async () => {
    expect(await request('h1')).toEqual(key); // no epoch yet: read, confirm adopts e0, read again
    const reads = index.reads;
    for (let i = 0; i < 5; i++) expect(await request('h1')).toEqual(key);
    expect(index.reads).toBe(reads);
  });

  it('refuses a suspended key on the next request even when no notification arrives', async () => {
    await request('h1');
    await request('h1');
    signal.deliver = false;
    await cache.suspend('ak_1'); // commits, then announces a new epoch nobody hears
    expect(await request('h1')).toBeNull();
  });

  it('does not let a lookup that overlapped a change stand, nor store it', async () => {
    await request('h1');
    cache.adoptEpoch(null); // start cold
    await request('h1');
    signal.deliver = false;
    // The lookup reads the key, then (before it returns) another instance revokes it and announces.
    index.beforeReturn = () => {
      index.beforeReturn = undefined;
      index.rows.delete('h1');
      void signal.announce();
    };
    cache.adoptEpoch(null);
    expect(await request('h1')).toBeNull();
    expect(await request('h1')).toBeNull();
  });

  it('a lookup confirmed after another request adopted the new epoch is decided again', async () => {
    await request('h1');
    const stamp = cache.cacheStamp();
    const stale = await cache.findActiveByHash('h1'); // from memory
    expect(stale).toEqual(key);
    signal.deliver = false;
    index.rows.delete('h1');
    await signal.announce();
    expect(cache.confirmCache(cache.cacheStamp(), signal.epoch)).toBe(false); // a concurrent request adopts it first
    expect(cache.confirmCache(stamp, signal.epoch)).toBe(false); // so this one must look again
  });

  it('never caches unknown keys, so a key created later is found at once', async () => {
    await request('h1');
    expect(await request('h2')).toBeNull();
    index.rows.set('h2', { ...key, keyId: 'ak_2' });
    expect((await request('h2'))?.keyId).toBe('ak_2');
  });

  it('forgets everything on a reconnect (messages may have been missed)', async () => {
    await request('h1');
    const reads = index.reads;
    signal.reconnect();
    await request('h1');
    expect(index.reads).toBeGreaterThan(reads);
  });
});
