import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract, Keypair, nativeToScVal, rpc, scValToNative, TransactionBuilder } from '@stellar/stellar-sdk';
import { startDevnet, type RunningDevnet } from '../start-devnet';

const HOUR_MS = 3_600_000;

async function transfer(server: rpc.Server, devnet: RunningDevnet, from: Keypair, to: string, amount: bigint): Promise<string> {
  const tx = new TransactionBuilder(await server.getAccount(from.publicKey()), { fee: '100', networkPassphrase: devnet.networkPassphrase })
    .addOperation(
      new Contract(devnet.paymentToken).call(
        'transfer',
        nativeToScVal(from.publicKey(), { type: 'address' }),
        nativeToScVal(to, { type: 'address' }),
        nativeToScVal(amount, { type: 'i128' }),
      ),
    )
    .setTimeout(0)
    .build();
  const prepared = await server.prepareTransaction(tx);
  prepared.sign(from);
  const sent = await server.sendTransaction(prepared);
  expect(sent.status).toBe('PENDING');
  return sent.hash;
}

describe('getEvents paging across more than 10,000 ledgers, and retention', () => {
  let devnet: RunningDevnet;
  let server: rpc.Server;
  const wallet = Keypair.random();

  beforeAll(async () => {
    // Ledgers are closed by the test (the interval loop is effectively off).
    devnet = await startDevnet({ port: 0, ledgerIntervalMs: HOUR_MS, retentionLedgers: 30_000 });
    server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
    let settled = false;
    const funded = fetch(`${devnet.friendbotUrl}?addr=${wallet.publicKey()}`).finally(() => (settled = true));
    while (!settled) {
      await new Promise((r) => setTimeout(r, 20));
      devnet.chain.closeLedger();
    }
    expect((await funded).status).toBe(200);
  });
  afterAll(async () => devnet.stop());

  it('pages with cursors through a 21,000-ledger gap (three scan windows) and ends each window with stellar-rpc cursors', async () => {
    const first = await transfer(server, devnet, wallet, Keypair.random().publicKey(), 1n);
    const firstLedger = devnet.chain.closeLedger().sequence;
    for (let i = 0; i < 21_000; i++) devnet.chain.closeLedger();
    const second = await transfer(server, devnet, wallet, Keypair.random().publicKey(), 2n);
    const secondLedger = devnet.chain.closeLedger().sequence;

    const filters = [{ type: 'contract' as const, contractIds: [devnet.paymentToken] }];
    const page1 = await server.getEvents({ startLedger: firstLedger, filters, limit: 10 });
    expect(page1.events.map((e) => e.txHash)).toEqual([first]);
    // Fewer than `limit` events: the cursor is the end of the 10,000-ledger scan window.
    expect(page1.cursor).toBe(
      `${(((BigInt(firstLedger) + 9_999n) << 32n) | (((1n << 20n) - 1n) << 12n) | ((1n << 12n) - 1n)).toString().padStart(19, '0')}-4294967295`,
    );
    const page2 = await server.getEvents({ cursor: page1.cursor, filters, limit: 10 });
    expect(page2.events).toHaveLength(0);
    const page3 = await server.getEvents({ cursor: page2.cursor, filters, limit: 10 });
    expect(page3.events.map((e) => e.txHash)).toEqual([second]);
    expect(page3.events[0].ledger).toBe(secondLedger);
    expect(scValToNative(page3.events[0].value)).toBe(2n);

    // A full page ends at the last event's id; the next page starts right after it.
    const full = await server.getEvents({ startLedger: firstLedger, filters: [], limit: 1 });
    expect(full.cursor).toBe(full.events[0].id);
    const next = await server.getEvents({ cursor: full.cursor, filters: [], limit: 1 });
    expect(next.events[0]?.id ?? '').not.toBe(full.events[0].id);
  });

  it('answers the real error for a startLedger older than the retention window, and bad params as JSON-RPC errors', async () => {
    const small = await startDevnet({ port: 0, ledgerIntervalMs: HOUR_MS, retentionLedgers: 50 });
    try {
      for (let i = 0; i < 300; i++) small.chain.closeLedger();
      const call = async (method: string, params: unknown) =>
        (await (
          await fetch(small.rpcUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          })
        ).json()) as {
          error?: { code: number; message: string };
          result?: { oldestLedger: number; latestLedger: number };
        };
      const health = await call('getHealth', {});
      const { oldestLedger, latestLedger } = health.result!;
      expect(oldestLedger).toBeGreaterThan(1);
      const res = await call('getEvents', { startLedger: 1, filters: [] });
      expect(res.error).toEqual({ code: -32600, message: `startLedger must be within the ledger range: ${oldestLedger} - ${latestLedger}` });
      expect((await call('getEvents', { startLedger: latestLedger, pagination: { limit: 10_001 } })).error?.code).toBe(-32602);
      expect((await call('getEvents', { startLedger: latestLedger, filters: [{ type: 'nope' }] })).error?.code).toBe(-32602);
      expect((await call('nope', {})).error?.code).toBe(-32601);
      expect((await call('sendTransaction', { transaction: 'AAAA' })).result).toMatchObject({ status: 'ERROR' });
      const bad = await fetch(small.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
      expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);
    } finally {
      await small.stop();
    }
  });
});

describe('persistence: the chain survives a restart', () => {
  it('keeps world state and history and continues the ledger sequence', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'devnet-'));
    try {
      const wallet = Keypair.random();
      const first = await startDevnet({ port: 0, dataDir, ledgerIntervalMs: 100 });
      const server1 = new rpc.Server(first.rpcUrl, { allowHttp: true });
      const grant = (await (await fetch(`${first.friendbotUrl}?addr=${wallet.publicKey()}`)).json()) as { hash: string };
      const hash = await transfer(server1, first, wallet, Keypair.random().publicKey(), 7n);
      await server1.pollTransaction(hash, { attempts: 50, sleepStrategy: () => 100 });
      const before = await server1.getLatestLedger();
      const seqBefore = (await server1.getAccount(wallet.publicKey())).sequenceNumber();
      await first.stop();

      const second = await startDevnet({ port: 0, dataDir, ledgerIntervalMs: 100 });
      try {
        const server2 = new rpc.Server(second.rpcUrl, { allowHttp: true });
        expect(second.paymentToken).toBe(first.paymentToken);
        expect((await server2.getLatestLedger()).sequence).toBeGreaterThanOrEqual(before.sequence);
        expect((await server2.getAccount(wallet.publicKey())).sequenceNumber()).toBe(seqBefore);
        expect((await server2.getTransaction(grant.hash)).status).toBe('SUCCESS');
        const tx = await server2.getTransaction(hash);
        expect(tx.status).toBe('SUCCESS');
        const events = await server2.getEvents({ startLedger: (tx as rpc.Api.GetSuccessfulTransactionResponse).ledger, filters: [], limit: 5 });
        expect(events.events[0].txHash).toBe(hash);
        // The chain keeps going: a new transaction after the restart.
        const again = await transfer(server2, second, wallet, Keypair.random().publicKey(), 1n);
        expect((await server2.pollTransaction(again, { attempts: 50, sleepStrategy: () => 100 })).status).toBe('SUCCESS');
        expect((await fetch(`${second.friendbotUrl}?addr=${wallet.publicKey()}`)).status).toBe(400);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
