import { createChainEventCatalog, indexerStreamId, poolStreamId } from '@dob/domain';
import { startDevnet, type RunningDevnet } from '@dob/devnet';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { LeaseKeeper, createSqlLeaseStore, leaseOwner } from '@dob/leases';
import { createPgliteDatabase, type SqlDatabase } from '@dob/sql';
import { Keypair } from '@stellar/stellar-sdk';
import { createTestPostgresDatabase } from '../../../sql/src/testing/test-databases';
import { KNOWN_DOB_WASMS, WasmRegistry } from '../decoding/contract-identity';
import { silentLogger, type IndexerLogger } from '../ingestion/ingestion-status';
import { NetworkIngestor } from '../ingestion/network-ingestor';
import { createStellarChainRpc } from '../rpc/stellar-rpc.adapter';
import { addr, chainEvent, contractAddr, i128, sym } from '../testing/chain-events';
import { FakeChainRpc } from '../testing/fake-chain-rpc';
import { startLeasedNetworkIndexing } from './leased-indexing';
import { failingOnce } from '../testing/failing-store';

const until = async (what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/**
 * Indexer fencing: an ingestor that went on after losing its lease (a zombie: its process was paused, or cut off
 * from the lease table) cannot commit once a new owner holds the network: its next window fails the indexer
 * stream's expected revision inside the append and it halts, appending nothing.
 */
describe('one ingesting indexer per network under a lease (devnet, PostgreSQL)', () => {
  let devnet: RunningDevnet;
  let db: SqlDatabase;
  let store: EventStore;
  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 250 });
    db = await createTestPostgresDatabase();
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  });
  afterAll(async () => {
    await store.close();
    await db.close();
    await devnet.stop();
  });

  it('the new owner resumes from the stored cursor and the old one is fenced out', async () => {
    const rpc = createStellarChainRpc({ rpcUrl: devnet.rpcUrl });
    const knownWasms = devnet.manifest.knownWasms;
    // The zombie: it ingested as the owner, then (unknown to it) its lease lapsed.
    const zombie = new NetworkIngestor(store, rpc, {
      networkId: 9,
      startLedger: 1,
      checkpointEveryLedgers: 1,
      wasmRegistry: new WasmRegistry([...KNOWN_DOB_WASMS, ...knownWasms]),
    });
    expect(await zombie.step()).toBe('advanced');
    const zombieNext = zombie.status().nextLedger!;

    const keeper = new LeaseKeeper(createSqlLeaseStore(db), leaseOwner('indexer'), { durationMs: 2_000, heartbeatMs: 200 });
    const resumedAt: unknown[] = [];
    const logger: IndexerLogger = {
      info: (msg, fields) => void (msg === 'ingestion resumed' && resumedAt.push(fields?.nextLedger)),
      warn: () => {},
      error: () => {},
    };
    const owner = startLeasedNetworkIndexing(store, { rpc, networkId: 9, startLedger: 1, knownWasms, scheduler: false, logger }, keeper);
    await keeper.start();
    await until('the new owner live', () => owner.current()?.status().state === 'live');
    expect(resumedAt).toEqual([zombieNext]); // from the stored cursor, not from the start ledger
    // Its first write re-committed that cursor as the indexer stream's next revision.
    const stream = await store.readStream(indexerStreamId(9));
    const restated = stream.filter((e) => e.type === 'IngestionCursorAdvanced').map((e) => (e.data as { to_ledger: number }).to_ledger);
    expect(restated.slice(0, 2)).toEqual([zombieNext - 1, zombieNext - 1]);

    await new Promise((r) => setTimeout(r, 600)); // a few ledgers for the zombie's next window
    await keeper.stop();
    await owner.stop();
    const beforeZombie = (await store.stats()).events;
    expect(await zombie.step()).toBe('halted');
    expect(zombie.status().haltReason).toMatch(/another indexer is ingesting network 9/);
    expect((await store.stats()).events).toBe(beforeZombie); // the zombie's window was refused whole
  });
});

describe('the fencing append fails (PGlite, fake RPC)', () => {
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

  it.each(['before commit', 'after commit'] as const)('%s: the lease holder fences again and ingests, instead of holding the lease idle', async (when) => {
    const pool = contractAddr(1);
    const [a, b] = [Keypair.random().publicKey(), Keypair.random().publicKey()];
    const rpc = new FakeChainRpc().add(chainEvent(pool, 11, 1, [sym('transfer'), addr(a), addr(b)], i128(5)));
    rpc.latestLedger = 12;
    const keeper = new LeaseKeeper(createSqlLeaseStore(db), leaseOwner('indexer'), { durationMs: 2_000, heartbeatMs: 20 });
    const owner = startLeasedNetworkIndexing(
      failingOnce(store, 'appendToStream', when),
      {
        rpc,
        networkId: 9,
        startLedger: 10,
        contracts: [{ contractId: pool, kind: 'splitter', version: '1.2' }],
        discovery: false,
        registeredPools: false,
        scheduler: false,
        pollIntervalMs: 10,
        logger: silentLogger,
      },
      keeper,
    );
    await keeper.start();
    try {
      await until('the lease holder live', () => owner.current()?.status().state === 'live', 15_000);
    } finally {
      await keeper.stop();
      await owner.stop();
    }
    // One fencing cursor (an append that landed is not appended again), then the window; its event once.
    const cursors = (await store.readStream(indexerStreamId(9))).map((e) => e.data as { from_ledger: number; to_ledger: number });
    expect(cursors.map((c) => [c.from_ledger, c.to_ledger])).toEqual([
      [10, 9],
      [10, 12],
    ]);
    expect(await store.readStream(poolStreamId(9, pool))).toHaveLength(1);
  });
});
