/**
 * Indexer start time against the length of its history, on PostgreSQL. The history is written straight through the
 * store in bulk (appendMany, 10,000 events per call): 10,000 and 1,000,000 one-ledger cursor windows on
 * `indexer-9`, after the ContractDiscovered of 17 contracts. Measured per history, each the median of 3 fresh
 * ingestors (first step(): load + one getHealth against an in-memory RPC that has nothing new):
 *   - without a snapshot — what every start did before snapshots: the whole indexer stream, and every listing
 *     event of `$all` for the listing book;
 *   - with a snapshot — one more window is ingested (it takes the snapshot the store lacks), then the start reads
 *     the last snapshot backwards and the indexer events after it.
 *   node -r @swc-node/register bench/indexer-start.bench.ts [windows,...]   → bench/results/indexer-start.json
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ContractDiscovered, createChainEventCatalog, IngestionCursorAdvanced, indexerStreamId } from '@dob/domain';
import { createSqlEventStore, type EventStore, type NewEvent } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { Keypair } from '@stellar/stellar-sdk';
import { NetworkIngestor } from '../libs/indexer/src/ingestion/network-ingestor';
import { addr, chainEvent, contractAddr, i128, sym } from '../libs/indexer/src/testing/chain-events';
import { FakeChainRpc } from '../libs/indexer/src/testing/fake-chain-rpc';
import { median, runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';

const NET = 9;
const BULK = 10_000;
const CONTRACTS = Array.from({ length: 17 }, (_, i) => contractAddr(i + 1));

function discovered(contract: string): NewEvent {
  return {
    id: randomUUID(),
    type: ContractDiscovered.type,
    version: 1,
    data: ContractDiscovered.payload({
      network_id: NET,
      contract_id: contract,
      kind: 'splitter',
      version: '1.2',
      wasm_hash: null,
      pool: null,
      source: 'configured',
      first_seen_ledger: 1,
    }),
  };
}

function cursor(ledger: number): NewEvent {
  return {
    id: randomUUID(),
    type: IngestionCursorAdvanced.type,
    version: 1,
    data: IngestionCursorAdvanced.payload({
      network_id: NET,
      from_ledger: ledger,
      to_ledger: ledger,
      next_ledger: ledger + 1,
      latest_ledger: ledger,
      latest_ledger_closed_at: null,
      chain_events: 1,
      domain_events: 1,
      undecoded: 0,
    }),
  };
}

/** Discoveries, then `windows` cursors of one ledger each (ledgers 1..windows), in appends of BULK events. */
async function writeHistory(store: EventStore, windows: number): Promise<number> {
  const t0 = performance.now();
  await store.appendToStream(indexerStreamId(NET), CONTRACTS.map(discovered), 'no_stream');
  for (let first = 1; first <= windows; first += BULK) {
    const events = Array.from({ length: Math.min(BULK, windows - first + 1) }, (_, i) => cursor(first + i));
    await store.appendToStream(indexerStreamId(NET), events);
  }
  return (performance.now() - t0) / 1000;
}

/** Milliseconds of a fresh ingestor's first step (it loads its state, then finds nothing new), median of 3. */
async function startMs(store: EventStore, rpc: FakeChainRpc): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const ingestor = new NetworkIngestor(store, rpc, { networkId: NET, startLedger: 1, discovery: false, registeredPools: true });
    const t0 = performance.now();
    const outcome = await ingestor.step();
    times.push(performance.now() - t0);
    if (outcome !== 'idle') throw new Error(`expected an idle first step, got ${outcome}`);
  }
  return +median(times).toFixed(1);
}

async function measure(windows: number) {
  const schema = `bench_start_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  try {
    // Written without the catalog (the payloads are built by the catalog's own definitions); read with it.
    const writer = await createSqlEventStore(db);
    const writeSeconds = await writeHistory(writer, windows);
    await writer.close();
    const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    const rpc = new FakeChainRpc();
    rpc.latestLedger = windows;
    const withoutSnapshot = await startMs(store, rpc);
    // One more window with an event of a watched pool: its commit takes the first snapshot.
    const a = Keypair.random().publicKey();
    const b = Keypair.random().publicKey();
    rpc.add(chainEvent(CONTRACTS[0]!, windows + 1, 1, [sym('transfer'), addr(a), addr(b)], i128(1)));
    rpc.latestLedger = windows + 1;
    const ingestor = new NetworkIngestor(store, rpc, { networkId: NET, startLedger: 1, discovery: false });
    if ((await ingestor.step()) !== 'advanced') throw new Error('the extra window was not ingested');
    const withSnapshot = await startMs(store, rpc);
    await store.close();
    return { windows, historyEvents: windows + CONTRACTS.length, writeSeconds: +writeSeconds.toFixed(1), startMs: { withoutSnapshot, withSnapshot } };
  } finally {
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

export async function run(sizes = (process.argv[2] ?? '10000,1000000').split(',').map(Number)): Promise<object> {
  const machine = startMachineRecord();
  const runs = [];
  for (const windows of sizes) {
    const r = await measure(windows);
    console.log(JSON.stringify(r));
    runs.push(r);
  }
  const result = {
    benchmark: 'indexer-start',
    at: new Date().toISOString(),
    machine: machine('shared 2-core machine; PostgreSQL; in-memory RPC (the start is store reads)'),
    parameters: { network: NET, contracts: CONTRACTS.length, bulkAppend: BULK, repetitions: 3, snapshotEveryWindows: 100 },
    how: 'first step() of a fresh NetworkIngestor: load (indexer stream, listing book, registrations) + one getHealth with nothing new; median of 3',
    runs,
  };
  writeBenchResult('indexer-start', result);
  return result;
}

runWhenMain(module, run);
