import { AppError } from '@dob/domain';
import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import type { KeyChangeSignal } from './key-change-signal.port';
import { SharedKeyCache, type KeyCacheLease } from './shared-key-cache';

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

/** The epoch as the database holds it; `hold()` keeps the next read pending; notifications only when `deliver`. */
class FakeSignal implements KeyChangeSignal {
  epoch = 0;
  deliver = false;
  failing = false;
  /** What a failing read throws: an error of its own, or the adapter's "database away" (a 503-class AppError). */
  failure: () => Error = () => new Error('epoch read failed');
  reads = 0;
  private listener?: () => void;
  private held?: { release: () => void; promise: Promise<void> };
  /** Another instance changed a key: the epoch moves with the change's commit. */
  change(index: FakeIndex, apply: () => void) {
    apply();
    this.epoch++;
    if (this.deliver) this.listener?.();
    void index;
  }
  hold() {
    let release!: () => void;
    const promise = new Promise<void>((r) => (release = r));
    this.held = { release, promise };
    return () => release();
  }
  async readEpoch() {
    this.reads++;
    if (this.failing) throw this.failure();
    const value = String(this.epoch); // the value as of the read's start
    if (this.held) {
      const { promise } = this.held;
      this.held = undefined;
      await promise;
    }
    return value;
  }
  async listen(onChange: () => void) {
    this.listener = onChange;
    return async () => undefined;
  }
}

const key: ActiveApiKey = { keyId: 'ak_1', wallet: 'G1', scopes: ['read'], rateLimitRpm: 60 };
// The timer never fires within a test: epoch reads happen only when a request finds the lease run out.
const lease: KeyCacheLease = { leaseMs: 300, refreshEveryMs: 3_600_000, marginMs: 25 };

describe('SharedKeyCache (a lease on the key epoch)', () => {
  let index: FakeIndex;
  let signal: FakeSignal;
  let cache: SharedKeyCache;
  let now: number;
  let slept: number[];

  beforeEach(async () => {
    now = 1_000;
    slept = [];
    index = new FakeIndex();
    index.rows.set('h1', key);
    signal = new FakeSignal();
    cache = await SharedKeyCache.over(index, signal, { lease, clock: () => now, sleep: async (ms) => void slept.push(ms) });
  });
  afterEach(() => cache.close());

  it('serves a known key from memory while the lease holds, without reading the database or the epoch', async () => {
    expect(await cache.findActiveByHash('h1')).toEqual(key);
    const [reads, epochReads] = [index.reads, signal.reads];
    for (let i = 0; i < 5; i++) expect(await cache.findActiveByHash('h1')).toEqual(key);
    expect([index.reads, signal.reads]).toEqual([reads, epochReads]);
  });

  it('a change heard by no notification: once the lease is out the epoch is read again, and the key is refused', async () => {
    await cache.findActiveByHash('h1');
    signal.change(index, () => index.rows.delete('h1'));
    // The writer answers only leaseMs + margin after its commit; a request after that finds this lease run out.
    now += lease.leaseMs + lease.marginMs;
    expect(await cache.findActiveByHash('h1')).toBeNull();
  });

  it('an epoch read that started before a change vouches only until its start + lease', async () => {
    await cache.findActiveByHash('h1');
    now += lease.leaseMs; // the lease from start-up ran out
    const release = signal.hold();
    const request = cache.findActiveByHash('h1'); // reads the epoch (old value, returned later)
    signal.change(index, () => index.rows.delete('h1')); // committed while that read was in flight
    now += 10;
    release();
    expect(await request).toEqual(key); // a request before the writer answered may still be served
    now += lease.leaseMs - 10; // = the read's start + lease: before the writer answers (commit + lease + margin)
    expect(await cache.findActiveByHash('h1')).toBeNull();
  });

  it('does not store a lookup that overlapped an epoch change', async () => {
    now += lease.leaseMs;
    index.beforeReturn = () => {
      index.beforeReturn = undefined;
      signal.change(index, () => index.rows.delete('h1'));
      void cache.readEpoch(); // the timer's read lands while the lookup is in flight
    };
    expect(await cache.findActiveByHash('h1')).toEqual(key); // read before the change: not stored
    expect(await cache.findActiveByHash('h1')).toBeNull();
  });

  it('a write through this cache answers only after the lease other instances may hold (leaseMs + margin)', async () => {
    await cache.project('G1', 2, []);
    expect(slept).toEqual([lease.leaseMs + lease.marginMs]);
    await cache.suspend('ak_1'); // the fail-safe before an append: the project that completes the command waits
    expect(slept).toHaveLength(1);
  });

  it('never caches unknown keys, so a key created later is found at once', async () => {
    expect(await cache.findActiveByHash('h2')).toBeNull();
    index.rows.set('h2', { ...key, keyId: 'ak_2' });
    expect((await cache.findActiveByHash('h2'))?.keyId).toBe('ak_2');
  });

  it('a notification empties the cache at once', async () => {
    signal.deliver = true;
    await cache.findActiveByHash('h1');
    signal.change(index, () => index.rows.delete('h1'));
    expect(await cache.findActiveByHash('h1')).toBeNull();
  });

  it('fails at once with the database-away error when the epoch read finds the database away: no second trip', async () => {
    await cache.findActiveByHash('h1');
    signal.failing = true;
    signal.failure = () => AppError.dependencyUnavailable('postgresql');
    now += lease.leaseMs;
    const reads = index.reads;
    await expect(cache.findActiveByHash('h2')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { dependency: 'postgresql' } });
    expect(index.reads).toBe(reads); // the keys live in the same database: asking it would wait out another timeout
  });

  it('serves nothing from memory while the epoch cannot be read', async () => {
    await cache.findActiveByHash('h1');
    signal.failing = true;
    now += lease.leaseMs;
    const reads = index.reads;
    expect(await cache.findActiveByHash('h1')).toEqual(key);
    expect(await cache.findActiveByHash('h1')).toEqual(key);
    expect(index.reads).toBe(reads + 2);
    signal.failing = false;
    now += 1;
    await cache.findActiveByHash('h1');
    const back = index.reads;
    expect(await cache.findActiveByHash('h1')).toEqual(key);
    expect(index.reads).toBe(back);
  });
});
