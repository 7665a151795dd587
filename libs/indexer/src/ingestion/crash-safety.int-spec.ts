import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { join } from 'node:path';
import { Address, rpc, xdr } from '@stellar/stellar-sdk';
import { createChainEventCatalog, indexerStreamId } from '@dob/domain';
import { createSqlEventStore, type EventStore, type RecordedEvent } from '@dob/event-store';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../../../sql/src/testing/test-databases';
import { readEverything } from '../../../event-store/src/testing/read-everything';
import { foldChainState } from '../testing/chain-state-fold';
import { ContractReads } from '../testing/contract-reads';
import { startLargeDevnet, type LargeDevnet } from '../testing/large-devnet';

/**
 * Acceptance (issue 4): the indexer, a CHILD PROCESS, is SIGKILLed at random points of a backfill of a large
 * seeded history, five times, then restarted to completion. Afterwards the store (real PostgreSQL) holds every
 * chain event of the watched contracts exactly once — the distinct chain event ids in the store equal the
 * getEvents totals the RPC reports for those contracts (queried here with the test's own filters) — no domain
 * event twice, and an unbroken cursor chain that covers exactly what is stored.
 *
 * Each life first commits at least one window, then dies at a random point 0-3 s later (fetch, decode or inside the
 * append transaction); the backfill is ~11 windows of ≤10,000 events, so all five kills land mid-backfill.
 * CRASH_EVENTS: the seeded history's size. 100,000 seeds in ~25-45 s on 2 cores (once; the chain is cached in the
 * tmp dir, see startLargeDevnet); the whole test runs ~2-2.5 min. Raise it as the seeder and machine allow.
 */
export const CRASH_EVENTS = 100_000;
const KILLS = 5;
const SEED = 7;
const CHILD = join(__dirname, '../testing/indexer-child.ts');

jest.setTimeout(600_000);

describe(`indexer SIGKILLed ${KILLS} times during a backfill of ~${CRASH_EVENTS} chain events`, () => {
  let large: LargeDevnet;
  let db: SqlDatabase;
  let store: EventStore;
  const schema = `crash_${randomBytes(5).toString('hex')}`;
  const kills: { afterMs: number; lastReport: string; persistedNextLedger: number }[] = [];
  const persistedNextLedger = async () => {
    const cursors = (await store.readStream(indexerStreamId(9))).filter((e) => e.type === 'IngestionCursorAdvanced');
    return cursors.length ? (cursors[cursors.length - 1].data as { next_ledger: number }).next_ledger : 1;
  };

  const child = (extra: Record<string, string> = {}): { proc: ChildProcess; lines: string[]; exited: Promise<number | null> } => {
    const proc = spawn(process.execPath, ['-r', join(__dirname, '../../../../scripts/register.js'), CHILD], {
      // Windows of 2,000 events (~50 over the backfill): five lives, each killed after committing at least one, stay
      // inside the backfill however fast the indexer has become.
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        RPC_URL: large.devnet.rpcUrl,
        PG_URL: TEST_POSTGRES_URL,
        PG_SCHEMA: schema,
        START_LEDGER: '1',
        MAX_EVENTS_PER_APPEND: '2000',
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    // Complete lines only (a chunk may end mid-line).
    let partial = '';
    proc.stdout!.on('data', (b: Buffer) => {
      const parts = (partial + b.toString()).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
    });
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    return { proc, lines, exited };
  };

  beforeAll(async () => {
    large = await startLargeDevnet({ events: CRASH_EVENTS, seed: SEED });
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
    store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });

    for (let k = 0; k < KILLS; k += 1) {
      const c = child();
      // Let this life commit at least one window (progress), then kill it at a random point of the following
      // window(s): fetching, decoding or inside the append transaction.
      const resumedAt = await persistedNextLedger();
      const progressed = () =>
        c.lines.some((l) => {
          const m = /"state":"backfilling","nextLedger":(\d+)/.exec(l);
          return m !== null && Number(m[1]) > resumedAt;
        });
      while (!progressed()) {
        if (c.proc.exitCode !== null) throw new Error(`child exited early: ${c.lines.join('\n')}`);
        if (c.lines.some((l) => l.includes('"state":"live"'))) {
          c.proc.kill('SIGKILL');
          throw new Error(`life ${k + 1} went live before it could be killed mid-backfill (the backfill is too short for ${KILLS} kills)`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      const afterMs = randomInt(0, 1_000);
      await new Promise((r) => setTimeout(r, afterMs));
      c.proc.kill('SIGKILL');
      await c.exited;
      kills.push({ afterMs, lastReport: c.lines[c.lines.length - 1] ?? '', persistedNextLedger: await persistedNextLedger() });
    }
    const final = child({ EXIT_WHEN_LIVE: '1' });
    expect(await final.exited).toBe(0);
  });

  afterAll(async () => {
    await store?.close();
    await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db?.close();
    await large?.stop();
  });

  const readAll = (): Promise<RecordedEvent[]> => readEverything(store, 10_000);

  /** The RPC's own answer: every successful event of the watched contracts, plus token transfers touching a pool. */
  async function chainEventIds(toLedger: number): Promise<Set<string>> {
    const server = new rpc.Server(large.devnet.rpcUrl, { allowHttp: true });
    const reads = new ContractReads(large.devnet.rpcUrl, large.devnet.networkPassphrase);
    const parties = large.devnet.pools.map((p) => p.pool_address);
    const tokens: string[] = [];
    for (const p of large.devnet.pools.filter((x) => x.contract_kind === 'splitter_v2')) {
      tokens.push((await reads.read<{ participation_token: string }>(p.pool_address, 'get_config')).participation_token);
    }
    const contracts = [...parties, ...tokens];
    const transfer = xdr.ScVal.scvSymbol('transfer').toXdr('base64');
    const filters: rpc.Api.EventFilter[] = [];
    for (let i = 0; i < contracts.length; i += 5) filters.push({ type: 'contract', contractIds: contracts.slice(i, i + 5) });
    for (const party of parties) {
      const a = new Address(party).toScVal().toXdr('base64');
      filters.push({
        type: 'contract',
        topics: [
          [transfer, a, '*', '*'],
          [transfer, '*', a, '*'],
        ],
      });
    }
    const ids = new Set<string>();
    for (let i = 0; i < filters.length; i += 5) {
      const request = filters.slice(i, i + 5);
      let page = await server.getEvents({ startLedger: 1, endLedger: toLedger + 1, filters: request, limit: 10_000 });
      for (;;) {
        for (const e of page.events) if (e.inSuccessfulContractCall && e.ledger <= toLedger) ids.add(e.id);
        if (page.events.length === 0) break;
        page = await server.getEvents({ cursor: page.cursor, filters: request, limit: 10_000 });
      }
    }
    return ids;
  }

  it('killed every child mid-backfill (never after it went live), with progress committed between kills', () => {
    expect(kills).toHaveLength(KILLS);
    for (const k of kills) expect(k.lastReport).not.toContain('"state":"live"');
    const progress = kills.map((k) => k.persistedNextLedger);
    expect(progress[progress.length - 1]).toBeGreaterThan(1);
    expect(progress[progress.length - 1]).toBeLessThan(large.devnet.chain.latestLedger().sequence);
    for (let i = 1; i < progress.length; i += 1) expect(progress[i]).toBeGreaterThan(progress[i - 1]);
  });

  it('stores each chain event of the watched contracts exactly once, with an unbroken cursor chain', async () => {
    const events = await readAll();
    const cursors = (await store.readStream(indexerStreamId(9))).filter((e) => e.type === 'IngestionCursorAdvanced');
    const c = cursors.map((e) => e.data as { from_ledger: number; to_ledger: number; next_ledger: number });
    // No gaps, no overlaps: each window starts where the previous one ended.
    expect(c[0].from_ledger).toBe(1);
    for (let i = 1; i < c.length; i += 1) expect([i, c[i].from_ledger]).toEqual([i, c[i - 1].next_ledger]);
    const lastLedger = c[c.length - 1].to_ledger;
    expect(c[c.length - 1].next_ledger).toBe(lastLedger + 1);

    // No domain event twice: unique ids, and no chain event decoded twice onto a stream under another id.
    const ids = events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const chainDerived = events.filter((e) => (e.data as { chain?: unknown }).chain);
    const keys = chainDerived.map((e) => `${(e.data as { chain: { event_id: string } }).chain.event_id}|${e.type}|${e.streamId}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(events.filter((e) => e.type === 'ChainEventUndecoded')).toHaveLength(0);

    // Exactly the chain's events: nothing beyond the cursor, nothing missing, nothing extra.
    const stored = new Set(chainDerived.map((e) => (e.data as { chain: { event_id: string } }).chain.event_id));
    for (const e of chainDerived) expect((e.data as { chain: { ledger: number } }).chain.ledger).toBeLessThanOrEqual(lastLedger);
    const onChain = await chainEventIds(lastLedger);
    expect(onChain.size).toBeGreaterThanOrEqual(CRASH_EVENTS * 0.9);
    const missing = [...onChain].filter((id) => !stored.has(id));
    const extra = [...stored].filter((id) => !onChain.has(id));
    expect({ missing: missing.slice(0, 5), extra: extra.slice(0, 5), stored: stored.size }).toEqual({ missing: [], extra: [], stored: onChain.size });
    // State carried across restarts (the listing book rebuilt from the store) is as if there had been no crash.
    const sold = foldChainState(events).soldRemaining;
    expect(sold.length).toBeGreaterThan(0);
    expect(sold.filter((r) => r.stored !== r.folded)).toEqual([]);
    // The per-window counts the cursors recorded add up to what is stored.
    expect(cursors.reduce((n, e) => n + (e.data as { chain_events: number }).chain_events, 0)).toBe(stored.size);
  });
});
