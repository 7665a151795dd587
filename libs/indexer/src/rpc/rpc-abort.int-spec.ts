import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSqlEventStore } from '@dob/event-store';
import { createPgliteDatabase } from '@dob/sql';
import { RpcTimeoutError, withTimeout } from '../ingestion/backoff';
import { startNetworkIndexing } from '../indexer-runtime';
import { silentLogger } from '../ingestion/ingestion-status';
import { createStellarChainRpc } from './stellar-rpc.adapter';

/** An RPC that reads each request and never answers; it records when each request's connection closes. */
async function startSilentRpc(): Promise<{ url: string; requests: IncomingMessage[]; closed: number[]; server: Server }> {
  const requests: IncomingMessage[] = [];
  const closed: number[] = [];
  const server = createServer((req) => {
    requests.push(req);
    req.resume();
    req.socket.once('close', () => closed.push(Date.now()));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`, requests, closed, server };
}

async function eventually(ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('an RPC call past its timeout is abandoned, not just raced', () => {
  let rpc: Awaited<ReturnType<typeof startSilentRpc>>;
  beforeEach(async () => {
    rpc = await startSilentRpc();
  });
  afterEach(async () => {
    rpc.server.closeAllConnections();
    await new Promise((r) => rpc.server.close(r));
  });

  it('the server sees the connection closed when the deadline passes', async () => {
    const chain = createStellarChainRpc({ rpcUrl: rpc.url });
    const started = Date.now();
    await expect(withTimeout((signal) => chain.getHealth({ signal }), 300)).rejects.toBeInstanceOf(RpcTimeoutError);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(rpc.requests).toHaveLength(1);
    await eventually(() => rpc.closed.length === 1, 2_000);
    expect(rpc.closed[0] - started).toBeGreaterThanOrEqual(290);
  });

  it("the indexer's calls time out, close their connections, and stopping abandons the call in flight", async () => {
    const db = await createPgliteDatabase();
    const store = await createSqlEventStore(db);
    const indexing = startNetworkIndexing(store, {
      rpcUrl: rpc.url,
      networkId: 9,
      startLedger: 1,
      rpcTimeoutMs: 200,
      backoff: { baseMs: 1, capMs: 5, maxAttempts: 3 },
      pollIntervalMs: 60_000,
      scheduler: false,
      logger: silentLogger,
    });
    try {
      // Three attempts of getHealth, each given up after 200 ms: three connections closed, step degraded.
      await eventually(() => indexing.status().state === 'degraded');
      expect(indexing.status().lastError).toMatch(/timed out after 200 ms/);
      await eventually(() => rpc.closed.length === 3, 2_000);
      expect(rpc.requests).toHaveLength(3);
    } finally {
      const stopping = Date.now();
      await indexing.stop(); // sleeping out its 60 s poll interval: a stop wakes it
      expect(Date.now() - stopping).toBeLessThan(1_000);
    }

    const slow = startNetworkIndexing(store, {
      rpcUrl: rpc.url,
      networkId: 9,
      startLedger: 1,
      rpcTimeoutMs: 60_000,
      scheduler: false,
      logger: silentLogger,
    });
    await eventually(() => rpc.requests.length === 4);
    const stopping = Date.now();
    await slow.stop();
    expect(Date.now() - stopping).toBeLessThan(1_000);
    await eventually(() => rpc.closed.length === 4, 2_000);
    await store.close();
    await db.close();
  });
});
