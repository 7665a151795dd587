import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChainEventCatalog, indexerStreamId } from '@dob/domain';
import { DEVNET_STAND_IN_WASMS, startDevnet, type RunningDevnet } from '@dob/devnet';
import { createSqlEventStore } from '@dob/event-store';
import { createPgliteDatabase } from '@dob/sql';
import { startNetworkIndexing } from '../indexer-runtime';
import type { IngestionAlarm } from './ingestion-status';

/**
 * Acceptance (issue 4): the devnet (persisted in a temp data dir) is restarted with a short retention window while
 * the indexer is stopped; the restarted indexer's cursor is then older than the RPC's oldest ledger and it must HALT
 * with the alarm — status `halted`, a haltReason naming the missing ledgers, a retention_gap alarm and an error log
 * line — and never skip ahead.
 */
jest.setTimeout(120_000);

const waitFor = async (what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

it('halts with a retention_gap alarm (not a skip) when the RPC no longer retains the cursor ledger', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'indexer-retention-'));
  const db = await createPgliteDatabase();
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  let devnet: RunningDevnet | undefined;
  try {
    devnet = await startDevnet({ port: 0, dataDir, seed: true, ledgerIntervalMs: 100 });
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    const first = startNetworkIndexing(store, {
      rpcUrl: devnet.rpcUrl,
      networkId: 9,
      startLedger: 1,
      knownWasms: DEVNET_STAND_IN_WASMS,
      pollIntervalMs: 100,
      scheduler: false,
      logger: quiet,
    });
    await waitFor('the first indexer to go live', () => first.status().state === 'live');
    await first.stop();
    // The persisted cursor (empty windows are checkpointed only every 720 ledgers, so it may trail the in-memory one).
    const lastCursor = async () => {
      const cursors = (await store.readStream(indexerStreamId(9))).filter((e) => e.type === 'IngestionCursorAdvanced');
      return (cursors[cursors.length - 1].data as { next_ledger: number }).next_ledger;
    };
    const cursor = await lastCursor();
    const eventsBefore = (await store.stats()).events;
    await devnet.stop();

    // Restart the same chain (same data dir) keeping only the last 20 ledgers, and let it close past the cursor.
    devnet = await startDevnet({ port: 0, dataDir, seed: true, ledgerIntervalMs: 50, retentionLedgers: 20 });
    const running = devnet;
    await waitFor('the retention window to pass the cursor', () => running.chain.latestLedger().sequence - 20 + 1 > cursor + 5);

    const alarms: IngestionAlarm[] = [];
    const errors: string[] = [];
    const second = startNetworkIndexing(store, {
      rpcUrl: devnet.rpcUrl,
      networkId: 9,
      startLedger: 1,
      knownWasms: DEVNET_STAND_IN_WASMS,
      pollIntervalMs: 100,
      scheduler: false,
      logger: { ...quiet, error: (m) => errors.push(m) },
      onAlarm: (a) => alarms.push(a),
    });
    await waitFor('the halt', () => second.status().state === 'halted');
    await second.stop();

    const status = second.status();
    expect(status.haltReason).toContain(`cursor at ledger ${cursor} is older than the RPC's oldest ledger`);
    expect(status.nextLedger).toBe(cursor);
    expect(status.oldestLedger).toBeGreaterThan(cursor);
    expect(alarms).toEqual([expect.objectContaining({ networkId: 9, kind: 'retention_gap', message: status.haltReason })]);
    expect(errors.some((m) => m.startsWith('INGESTION HALTED') && m.includes(`ledger ${cursor}`))).toBe(true);
    expect((await second.health()).ready).toBe(false);
    // Nothing was skipped: no cursor beyond the gap was written, the store is as the first indexer left it.
    expect(await lastCursor()).toBe(cursor);
    expect((await store.stats()).events).toBe(eventsBefore);
  } finally {
    await devnet?.stop();
    await store.close();
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
