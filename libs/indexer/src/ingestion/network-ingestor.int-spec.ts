import { randomUUID } from 'node:crypto';
import { PoolRegistered, createChainEventCatalog, indexerStreamId, poolStreamId } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { WasmRegistry, type ContractIdentity } from '../decoding/contract-identity';
import { addr, bool, chainEvent, contractAddr, i128, sym, u32, vec } from '../testing/chain-events';
import { FakeChainRpc } from '../testing/fake-chain-rpc';
import { failingOnce } from '../testing/failing-store';
import type { IngestionAlarm } from './ingestion-status';
import { ingestionSnapshotStreamId } from './ingestion-snapshot';
import { NetworkIngestor, type NetworkIngestorConfig } from './network-ingestor';

/** Ingestion against a fake RPC and the real SQL event store on PGlite (cursor atomicity needs a real store). */
const NET = 9;
const POOL = contractAddr(1);
const TOKEN = contractAddr(4);
const ADMIN = Keypair.random().publicKey();
const A = Keypair.random().publicKey();
const B = Keypair.random().publicKey();
const V1: ContractIdentity = { contractId: POOL, kind: 'splitter', version: '1.2' };
const HASH_V1 = '11'.repeat(32);
const HASH_V2 = '22'.repeat(32);
const LISTED_METADATA = {
  name: 'Listed pool',
  ticker: 'LST',
  access_type: 'public',
  distribution_type: 'revenue',
  estimated_apr: null,
  max_participants: null,
  token_to_distribute: null,
};

let db: SqlDatabase;
let store: EventStore;
beforeEach(async () => {
  db = await createPgliteDatabase();
  store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
});
afterEach(async () => {
  await store.close();
  await db.close();
});

const noSleep = async () => {};
function ingestor(rpc: FakeChainRpc, extra: Partial<NetworkIngestorConfig> = {}, alarms: IngestionAlarm[] = [], on: EventStore = store) {
  return new NetworkIngestor(on, rpc, {
    networkId: NET,
    startLedger: 10,
    contracts: [V1],
    discovery: false,
    sleep: noSleep,
    onAlarm: (a) => alarms.push(a),
    ...extra,
  });
}
const transfer = (ledger: number, i: number, n: number) => chainEvent(POOL, ledger, i, [sym('transfer'), addr(A), addr(B)], i128(n));

describe('NetworkIngestor', () => {
  it('backfills through cursor pages and commits events with the cursor in one append', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1), transfer(11, 2, 2), transfer(12, 1, 3), transfer(15, 1, 4), transfer(30, 1, 5));
    rpc.latestLedger = 20;
    const ing = ingestor(rpc, { pageLimit: 2 });
    expect(await ing.step()).toBe('advanced');
    const pool = await store.readStream(poolStreamId(NET, POOL));
    expect(pool.map((e) => (e.data as { shares: string }).shares)).toEqual(['1', '2', '3', '4']);
    // The first page used the ledger range, the following ones the cursor (stellar-rpc forbids mixing them).
    expect(rpc.requests.filter((r) => 'cursor' in r).length).toBeGreaterThanOrEqual(1);
    const cursor = await store.readStream(indexerStreamId(NET));
    expect(cursor.map((e) => e.type)).toEqual(['IngestionCursorAdvanced']);
    expect(cursor[0].data).toMatchObject({ from_ledger: 10, to_ledger: 20, next_ledger: 21, chain_events: 4, domain_events: 4 });
    // Both landed in one transaction: same commit position.
    expect(cursor[0].position.commit).toBe(pool[0].position.commit);
    expect(ing.status()).toMatchObject({ state: 'live', ledgersBehind: 0, nextLedger: 21 });
  });

  it('resumes from the stored cursor after a restart and never re-appends', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1));
    rpc.latestLedger = 20;
    await ingestor(rpc).step();
    rpc.add(transfer(25, 1, 2));
    rpc.latestLedger = 30;
    rpc.requests.length = 0;
    const restarted = ingestor(rpc);
    expect(await restarted.step()).toBe('advanced');
    expect(rpc.requests[0]).toMatchObject({ startLedger: 21, endLedger: 31 });
    const pool = await store.readStream(poolStreamId(NET, POOL));
    expect(pool.map((e) => (e.data as { shares: string }).shares)).toEqual(['1', '2']);
  });

  it('restarts from its last snapshot: reads only the indexer events after it, and resumes cursor, watch set and listings', async () => {
    const listed = (ledger: number, shares: number) => chainEvent(POOL, ledger, 1, [sym('listed'), addr(A)], vec(i128(shares), i128(3), addr(TOKEN)));
    const sold = (ledger: number, shares: number) =>
      chainEvent(POOL, ledger, 1, [sym('sold'), addr(A), addr(B)], vec(i128(shares), i128(3 * shares), addr(TOKEN)));
    const rpc = new FakeChainRpc().add(listed(11, 100), transfer(16, 1, 1), sold(21, 30), transfer(26, 2, 2), sold(31, 20));
    rpc.latestLedger = 28;
    const opts = { windowLedgers: 5, snapshotEveryWindows: 2 };
    const first = ingestor(rpc, opts);
    for (let i = 0; i < 10 && (await first.step()) === 'advanced'; i += 1);
    // Windows 10-14, 15-19, 20-24, 25-28: snapshots with the 1st (none before) and the 3rd.
    const snapshots = await store.readStream(ingestionSnapshotStreamId(NET));
    expect(snapshots.map((e) => e.data)).toMatchObject([
      { indexer_revision: 0, next_ledger: 15, open_listings: [{ pool: POOL, seller: A, shares: '100' }] },
      { indexer_revision: 2, next_ledger: 25, checkpoint_ledger: 24, open_listings: [{ pool: POOL, seller: A, shares: '70' }] },
    ]);
    expect((snapshots[1].data as { watched: { contract_id: string }[] }).watched.map((w) => w.contract_id)).toEqual([POOL]);

    rpc.latestLedger = 35;
    const reads: { streamId: string; options?: unknown }[] = [];
    const spied: EventStore = Object.create(store, {
      readStream: { value: (streamId: string, options?: object) => (reads.push({ streamId, options }), store.readStream(streamId, options)) },
    });
    const restarted = new NetworkIngestor(spied, rpc, { networkId: NET, startLedger: 10, discovery: false, sleep: noSleep, ...opts });
    const asked = rpc.requests.length;
    expect(await restarted.step()).toBe('advanced');
    // The indexer stream is read from the snapshot's cursor on (revision 2: that cursor and the one after it), never whole.
    expect(reads.filter((r) => r.streamId === indexerStreamId(NET)).map((r) => r.options)).toEqual([{ fromRevision: 2 }]);
    expect(rpc.requests[asked]).toMatchObject({ startLedger: 29, endLedger: 34 });
    const sales = (await store.readStream(poolStreamId(NET, POOL))).filter((e) => e.type === 'ListingSold');
    // The watch set (no configured contracts here) and the listing book came back: the second sale leaves 50.
    expect(sales.map((e) => (e.data as { shares_remaining: string }).shares_remaining)).toEqual(['70', '50']);
    expect(restarted.status().nextLedger).toBe(34);
  });

  it('rebuilds from the whole indexer stream when there is no snapshot, and takes one with its next cursor', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1), transfer(16, 1, 2));
    rpc.latestLedger = 14;
    await ingestor(rpc, { snapshotEveryWindows: 1_000 }).step();
    // A store written before snapshots existed: drop the one the first cursor took. es_events is append-only, so this
    // is surgery (the trigger off, and a process restart after: the old store's stream heads no longer hold).
    await db.exec(`ALTER TABLE es_events DISABLE TRIGGER es_events_no_update_or_delete;
      DELETE FROM es_events WHERE stream_id = '${ingestionSnapshotStreamId(NET)}';
      ALTER TABLE es_events ENABLE TRIGGER es_events_no_update_or_delete;`);
    await store.close();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    rpc.latestLedger = 20;
    const restarted = ingestor(rpc, { snapshotEveryWindows: 1_000 });
    expect(await restarted.step()).toBe('advanced');
    expect((await store.readStream(poolStreamId(NET, POOL))).map((e) => (e.data as { shares: string }).shares)).toEqual(['1', '2']);
    expect((await store.readStream(ingestionSnapshotStreamId(NET))).map((e) => e.data)).toMatchObject([{ indexer_revision: 1, next_ledger: 21 }]);
  });

  it('retries RPC failures with exponential backoff and jitter', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1));
    rpc.latestLedger = 12;
    rpc.failures.push(new Error('ECONNRESET'), new Error('503 Service Unavailable'));
    const delays: number[] = [];
    const ing = ingestor(rpc, {
      sleep: async (ms) => void delays.push(ms),
      backoff: { baseMs: 100, capMs: 1000, maxAttempts: 5, random: () => 0.5, sleep: async (ms) => void delays.push(ms) },
    });
    expect(await ing.step()).toBe('advanced');
    expect(delays).toEqual([50, 100]);
    expect(await store.readStream(poolStreamId(NET, POOL))).toHaveLength(1);
  });

  it('is degraded from the first failed RPC call while it retries, and live again after the next window', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1));
    rpc.latestLedger = 12;
    rpc.failures.push(new Error('fetch failed'), new Error('fetch failed'));
    const seen: { state: string; lastError: string | null }[] = [];
    const ing: NetworkIngestor = ingestor(rpc, {
      backoff: {
        baseMs: 1,
        capMs: 1,
        maxAttempts: 5,
        sleep: async () => void seen.push({ state: ing.status().state, lastError: ing.status().lastError ?? null }),
      },
    });
    expect(await ing.step()).toBe('advanced');
    expect(seen).toEqual([
      { state: 'degraded', lastError: 'Error: fetch failed' },
      { state: 'degraded', lastError: 'Error: fetch failed' },
    ]);
    expect(ing.status()).toMatchObject({ state: 'live', lastError: null });
  });

  it('is degraded, naming the silent RPC, once a call has waited rpcSlowMs unanswered, and live again after it answers', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1));
    rpc.latestLedger = 12;
    const ing = ingestor(rpc, { rpcSlowMs: 50 });
    expect(await ing.step()).toBe('advanced');
    expect(ing.status().state).toBe('live');

    const silent = rpc.silence();
    rpc.latestLedger = 14;
    const step = ing.step();
    await new Promise((r) => setTimeout(r, 200));
    expect(ing.status()).toMatchObject({ state: 'degraded', lastError: expect.stringMatching(/RPC has not answered for 50 ms/) });
    silent.release();
    expect(await step).toBe('advanced');
    expect(ing.status()).toMatchObject({ state: 'live', lastError: null });
  });

  it('halts with an alarm when the cursor is older than the RPC retention, appending nothing', async () => {
    const rpc = new FakeChainRpc().add(transfer(60, 1, 1));
    rpc.oldestLedger = 50;
    rpc.latestLedger = 70;
    const alarms: IngestionAlarm[] = [];
    const ing = ingestor(rpc, {}, alarms);
    expect(await ing.step()).toBe('halted');
    expect(await ing.step()).toBe('halted');
    expect(ing.status().state).toBe('halted');
    expect(ing.status().haltReason).toMatch(/ledger 10 is older than the RPC's oldest ledger 50/);
    expect(alarms.map((a) => a.kind)).toEqual(['retention_gap']);
    expect(await store.readStream(indexerStreamId(NET))).toHaveLength(0);
    await expect(ing.run()).resolves.toBeUndefined();
  });

  it('a second indexer on the same network fails loudly (expected version on the indexer stream)', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1));
    rpc.latestLedger = 12;
    await ingestor(rpc).step();
    rpc.add(transfer(13, 1, 2));
    rpc.latestLedger = 14;
    // A successor that starts after the first stopped reads its cursor and simply continues.
    expect(await ingestor(rpc).step()).toBe('advanced');
    const alarms: IngestionAlarm[] = [];
    const a = ingestor(rpc, {}, alarms);
    const b = ingestor(rpc, {}, alarms);
    rpc.add(transfer(15, 1, 3));
    rpc.latestLedger = 16;
    // Both load the same revision, then race: the second commit must be refused.
    await (a as unknown as { load(): Promise<void> }).load();
    await (b as unknown as { load(): Promise<void> }).load();
    expect(await a.step()).toBe('advanced');
    expect(await b.step()).toBe('halted');
    expect(b.status().haltReason).toMatch(/another indexer is ingesting network 9/);
    expect(alarms.map((x) => x.kind)).toEqual(['concurrent_indexer']);
  });

  it('discovers Dob contracts by wasm hash, follows a V2 pool to its participation token, ignores others', async () => {
    const v1 = contractAddr(11);
    const v2 = contractAddr(12);
    const pt = contractAddr(13);
    const impostor = contractAddr(14);
    const rpc = new FakeChainRpc();
    rpc.executables.set(v1, { kind: 'wasm', hash: HASH_V1 });
    rpc.executables.set(v2, { kind: 'wasm', hash: HASH_V2 });
    rpc.executables.set(impostor, { kind: 'wasm', hash: '33'.repeat(32) });
    rpc.add(
      chainEvent(v1, 11, 1, [sym('init'), addr(ADMIN)], vec(u32(2), bool(true))),
      chainEvent(v1, 11, 2, [sym('shares')], u32(2)),
      chainEvent(impostor, 11, 3, [sym('init'), addr(ADMIN)], vec(u32(2), bool(true))),
      chainEvent(impostor, 11, 4, [sym('shares')], u32(2)),
      // V2 init mints the participation token first, then emits init (same transaction).
      chainEvent(pt, 12, 1, [sym('mint'), addr(v2), addr(A)], i128(600_000)),
      chainEvent(pt, 12, 2, [sym('mint'), addr(v2), addr(B)], i128(400_000)),
      chainEvent(v2, 12, 3, [sym('init'), addr(ADMIN)], vec(addr(pt), u32(2), bool(true), u32(3))),
      chainEvent(TOKEN, 13, 1, [sym('transfer'), addr(A), addr(v2), xdr4('USDC')], i128(5000)),
    );
    rpc.latestLedger = 13;
    const registry = new WasmRegistry([
      { hash: HASH_V1, kind: 'splitter', version: '1.2', label: 'test v1' },
      { hash: HASH_V2, kind: 'splitter', version: '2', label: 'test v2' },
    ]);
    const ing = ingestor(rpc, { contracts: [], discovery: true, wasmRegistry: registry });
    expect(await ing.step()).toBe('advanced');
    expect(rpc.executableLookups).toEqual([3]); // v1, the impostor and v2: one getLedgerEntries
    expect((await store.readStream(poolStreamId(NET, v1))).map((e) => e.type)).toEqual(['PoolInitialized', 'ShareTableUpdated']);
    expect(await store.readStream(poolStreamId(NET, impostor))).toHaveLength(0);
    const v2Stream = await store.readStream(poolStreamId(NET, v2));
    expect(v2Stream.map((e) => e.type)).toEqual([
      'ParticipationTokenMinted',
      'SharesTransferred',
      'ParticipationTokenMinted',
      'SharesTransferred',
      'PoolInitialized',
      'PaymentTokenTransferred',
    ]);
    expect(v2Stream[1].data).toMatchObject({ reason: 'crowdfunding_allocation', to: A, shares: '600000' });
    const indexer = await store.readStream(indexerStreamId(NET));
    expect(indexer.filter((e) => e.type === 'ContractDiscovered').map((e) => (e.data as { contract_id: string; source: string }).source)).toEqual([
      'init',
      'init',
      'participation_token',
    ]);
    // After a restart the discovered contracts are watched again without re-discovery.
    const restarted = ingestor(rpc, { contracts: [], discovery: false, wasmRegistry: registry });
    rpc.add(chainEvent(v1, 14, 1, [sym('locked')], bool(true)));
    rpc.latestLedger = 14;
    await restarted.step();
    expect((await store.readStream(poolStreamId(NET, v1))).map((e) => e.type)).toContain('PoolLocked');
  });

  it("confirms a window's discovery candidates in one ledger-entries call per 200, and reads V1 cap tables 8 calls at a time", async () => {
    const rpc = new FakeChainRpc();
    const registry = new WasmRegistry([{ hash: HASH_V1, kind: 'splitter', version: '1.2', label: 'test v1' }]);
    const contract = (name: string) => StrKey.encodeContract(Buffer.from(name.padEnd(32, '.')));
    const pools = Array.from({ length: 20 }, (_, i) => contract(`pool ${i}`));
    const impostors = Array.from({ length: 190 }, (_, i) => contract(`impostor ${i}`));
    const tableOf = (i: number) => [
      { shareholder: A, share: String(1000 + i) },
      { shareholder: B, share: String(9000 - i) },
    ];
    pools.forEach((pool, i) => {
      const ledger = 11 + i; // a ledger each: the fake's transaction hash is the ledger's
      rpc.executables.set(pool, { kind: 'wasm', hash: HASH_V1 });
      rpc.add(chainEvent(pool, ledger, 1, [sym('init'), addr(ADMIN)], vec(u32(2), bool(true))));
      const entry = (t: { shareholder: string; share: string }) =>
        xdr.ScVal.scvMap([
          new xdr.ScMapEntry({ key: sym('share'), val: i128(Number(t.share)) }),
          new xdr.ScMapEntry({ key: sym('shareholder'), val: addr(t.shareholder) }),
        ]);
      rpc.invocations.set(ledger.toString(16).padStart(64, '0'), {
        contractId: pool,
        functionName: 'init',
        args: [addr(ADMIN), vec(...tableOf(i).map(entry)), bool(true)],
      });
    });
    impostors.forEach((c, i) => rpc.add(chainEvent(c, 40 + (i % 5), 10 + i, [sym('init'), addr(ADMIN)], vec(u32(2), bool(true)))));
    rpc.latestLedger = 45;
    const ing = ingestor(rpc, { contracts: [], discovery: true, wasmRegistry: registry });
    expect(await ing.step()).toBe('advanced');
    expect(rpc.executableLookups).toEqual([200, 10]);
    expect(rpc.maxInvocationsInFlight).toBe(8);
    for (const [i, pool] of pools.entries()) {
      const [init] = await store.readStream(poolStreamId(NET, pool));
      expect(init.data).toMatchObject({ initial_shares: tableOf(i) });
    }
    const discovered = (await store.readStream(indexerStreamId(NET))).filter((e) => e.type === 'ContractDiscovered');
    expect(discovered.map((e) => (e.data as { contract_id: string }).contract_id)).toEqual(pools);
  });

  it('stops paging once a window has maxEventsPerAppend events, and ingests every event once over the windows', async () => {
    const rpc = new FakeChainRpc().add(...[11, 11, 12, 13, 14, 15, 16, 30].map((ledger, i) => transfer(ledger, i + 1, i + 1)));
    rpc.latestLedger = 40;
    const ing = ingestor(rpc, { pageLimit: 2, maxEventsPerAppend: 3 });
    rpc.requests.length = 0;
    expect(await ing.step()).toBe('advanced');
    // Two pages (4 events, through ledger 12) were enough: the window ends at 12, not at the range's end (40).
    expect(rpc.requests.findIndex((r) => 'startLedger' in r && r.startLedger === 13)).toBe(2); // the next window's, prefetched
    for (let i = 0; i < 20 && ing.status().state !== 'live'; i += 1) await ing.step();
    const pool = await store.readStream(poolStreamId(NET, POOL));
    expect(pool.map((e) => (e.data as { shares: string }).shares)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    const windows = (await store.readStream(indexerStreamId(NET))).map((e) => e.data as { from_ledger: number; to_ledger: number });
    expect(windows[0]).toMatchObject({ from_ledger: 10, to_ledger: 12 });
    windows.forEach((w, i) => i > 0 && expect(w.from_ledger).toBe(windows[i - 1].to_ledger + 1));
  });

  it('drops the prefetched next window when the watch set changes before it is used', async () => {
    const later = contractAddr(21);
    const rpc = new FakeChainRpc();
    rpc.executables.set(later, { kind: 'wasm', hash: HASH_V1 });
    rpc.add(
      transfer(11, 1, 1),
      transfer(16, 1, 2),
      chainEvent(later, 17, 1, [sym('init'), addr(ADMIN)], vec(u32(2), bool(true))),
      chainEvent(later, 18, 1, [sym('shares')], u32(2)),
    );
    rpc.latestLedger = 19;
    const registry = new WasmRegistry([{ hash: HASH_V1, kind: 'splitter', version: '1.2', label: 'test v1' }]);
    const ing = ingestor(rpc, { windowLedgers: 5, discovery: true, wasmRegistry: registry });
    expect(await ing.step()).toBe('advanced'); // 10-14, and 15-19 prefetched while watching POOL only
    expect(await ing.step()).toBe('advanced'); // 15-19: discovery adds `later`, so 15-19 is fetched again
    expect((await store.readStream(poolStreamId(NET, later))).map((e) => e.type)).toEqual(['PoolInitialized', 'ShareTableUpdated']);
    expect((await store.readStream(poolStreamId(NET, POOL))).map((e) => (e.data as { shares: string }).shares)).toEqual(['1', '2']);
  });

  it('a window whose append failed is ingested again from the stored state: its discoveries are committed on the retry', async () => {
    const found = contractAddr(31);
    const listed = contractAddr(32);
    const rpc = new FakeChainRpc();
    rpc.executables.set(found, { kind: 'wasm', hash: HASH_V1 });
    rpc.executables.set(listed, { kind: 'wasm', hash: HASH_V1 });
    rpc.add(chainEvent(found, 11, 1, [sym('init'), addr(ADMIN)], vec(u32(2), bool(true))), chainEvent(found, 11, 2, [sym('shares')], u32(2)));
    rpc.add(chainEvent(listed, 11, 3, [sym('shares')], u32(3)));
    // An operator registered `listed` (no init in range: only the registry names it).
    await store.appendToStream(poolStreamId(NET, listed), [
      {
        id: randomUUID(),
        type: PoolRegistered.type,
        version: 1,
        data: PoolRegistered.payload({ network_id: NET, pool: listed, ...LISTED_METADATA, registered_at: '2026-01-01T00:00:00.000Z' }),
      },
    ]);
    rpc.latestLedger = 12;
    const registry = new WasmRegistry([{ hash: HASH_V1, kind: 'splitter', version: '1.2', label: 'test v1' }]);
    // The database goes away for one append (a restart, a dropped connection), then comes back.
    const flaky = failingOnce(store, 'appendMany', 'before commit');
    const config: NetworkIngestorConfig = { networkId: NET, startLedger: 10, contracts: [], discovery: true, wasmRegistry: registry, sleep: noSleep };
    const ing = new NetworkIngestor(flaky, rpc, config);
    await expect(ing.step()).rejects.toThrow('connection terminated unexpectedly');
    expect(await ing.step()).toBe('advanced');
    const discovered = (await store.readStream(indexerStreamId(NET))).filter((e) => e.type === 'ContractDiscovered');
    expect(discovered.map((e) => e.data as { contract_id: string; source: string }).map((d) => [d.contract_id, d.source])).toEqual([
      [found, 'init'],
      [listed, 'registry'],
    ]);
    expect((await store.readStream(poolStreamId(NET, found))).map((e) => e.type)).toEqual(['PoolInitialized', 'ShareTableUpdated']);
    expect((await store.readStream(poolStreamId(NET, listed))).map((e) => e.type)).toEqual(['PoolRegistered', 'ShareTableUpdated']);
    // A restart watches both again (from the snapshot the retry committed with its window), registry reads off.
    rpc.add(chainEvent(found, 13, 1, [sym('locked')], bool(true)));
    rpc.latestLedger = 13;
    rpc.add(chainEvent(listed, 13, 2, [sym('locked')], bool(true)));
    expect(await new NetworkIngestor(store, rpc, { ...config, discovery: false, registeredPools: false }).step()).toBe('advanced');
    expect((await store.readStream(poolStreamId(NET, found))).map((e) => e.type)).toContain('PoolLocked');
    expect((await store.readStream(poolStreamId(NET, listed))).map((e) => e.type)).toContain('PoolLocked');
  });

  it('an append that landed although its answer was lost: the retry resumes after it from the stored cursor, nothing twice', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1), transfer(12, 1, 2));
    rpc.latestLedger = 12;
    const alarms: IngestionAlarm[] = [];
    const ing = ingestor(rpc, {}, alarms, failingOnce(store, 'appendMany', 'after commit'));
    await expect(ing.step()).rejects.toThrow('connection terminated unexpectedly');
    expect(await ing.step()).toBe('idle');
    rpc.add(transfer(13, 1, 3));
    rpc.latestLedger = 13;
    expect(await ing.step()).toBe('advanced');
    expect((await store.readStream(poolStreamId(NET, POOL))).map((e) => (e.data as { shares: string }).shares)).toEqual(['1', '2', '3']);
    const cursors = (await store.readStream(indexerStreamId(NET))).map((e) => e.data as { from_ledger: number; to_ledger: number });
    expect(cursors.map((c) => [c.from_ledger, c.to_ledger])).toEqual([
      [10, 12],
      [13, 13],
    ]);
    expect(alarms).toEqual([]);
  });

  it('cuts an oversized window at a ledger boundary and reports lag while backfilling', async () => {
    const rpc = new FakeChainRpc().add(transfer(11, 1, 1), transfer(11, 2, 2), transfer(12, 1, 3), transfer(13, 1, 4));
    rpc.latestLedger = 40;
    const ing = ingestor(rpc, { maxEventsPerAppend: 3 });
    await ing.step();
    const cursor = await store.readStream(indexerStreamId(NET));
    // 4 events > 3: the window ends before ledger 13 (the 4th event's ledger), never inside a ledger.
    expect(cursor[0].data).toMatchObject({ from_ledger: 10, to_ledger: 12, chain_events: 3 });
    expect(ing.status()).toMatchObject({ state: 'backfilling', nextLedger: 13, ledgersBehind: 28, secondsBehind: 140 });
    await ing.step();
    await ing.step();
    expect((await store.readStream(poolStreamId(NET, POOL))).length).toBe(4);
    expect(ing.status().state).toBe('live');
  });
});

function xdr4(code: string) {
  return xdr.ScVal.scvString(`${code}:${Keypair.random().publicKey()}`);
}
