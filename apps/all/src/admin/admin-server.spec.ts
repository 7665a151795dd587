import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '@dob/event-store';
import type { KafkaRelaySettings } from '@dob/kafka-relay';
import type { ProjectionRunner, RebuildOptions } from '@dob/projections';
import { readAdminEndpoint } from '@dob/runtime';
import type { SqlDatabase } from '@dob/sql';
import { startAdminServer, type AdminServer } from './admin-server';

/** A runner that serves one projection, `pools`, and refuses a reset (no active slot). */
const slot = (generation: number) => ({ name: 'pools', version: 3, generation });
const fakeRunner = {
  names: ['pools'],
  status: async () => [{ name: 'pools', definitionVersion: 3, active: null, building: null, caughtUp: true }],
  rebuild: async (_name: string, options: RebuildOptions) => {
    for (const applied of [0, 25, 50]) options.onProgress?.({ slot: slot(1), applied, total: 50, position: { commit: 1n, prepare: BigInt(applied) } });
    return { from: slot(0), to: slot(1), eventsApplied: 50 };
  },
  reset: async () => {
    throw new Error('projection pools has no active slot yet');
  },
  retry: async () => undefined,
} as unknown as ProjectionRunner;

describe('the admin endpoint', () => {
  let dataDir: string;
  let server: AdminServer;
  let token: string;
  const call = (method: string, path: string, body?: unknown, auth = `Bearer ${token}`) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: auth },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  const start = async (kafka?: KafkaRelaySettings) => {
    server = await startAdminServer({ dataDir, projections: fakeRunner, db: {} as SqlDatabase, eventStore: {} as EventStore, ...(kafka ? { kafka } : {}) });
    token = readAdminEndpoint(dataDir)!.token;
  };
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'admin-server-'))));
  afterEach(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('publishes its loopback URL, refuses without (401) or with another token (403), and withdraws the file on close', async () => {
    await start();
    expect(readAdminEndpoint(dataDir)).toMatchObject({ url: server.url, pid: process.pid });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await call('GET', '/projections', undefined, '')).status).toBe(401);
    expect((await call('POST', '/projections/pools/rebuild', undefined, 'Bearer nope')).status).toBe(403);
    expect((await call('GET', '/projections')).status).toBe(200);
    await server.close();
    expect(readAdminEndpoint(dataDir)).toBeUndefined();
    await start(); // afterEach closes this one
  });

  it("streams a rebuild's progress as NDJSON, then its result", async () => {
    await start();
    const res = await call('POST', '/projections/pools/rebuild');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    const lines = (await res.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      { progress: { applied: 0, total: 50 } },
      { progress: { applied: 25, total: 50 } },
      { progress: { applied: 50, total: 50 } },
      { result: { from: slot(0), to: slot(1), eventsApplied: 50 } },
    ]);
  });

  it('answers mistakes with a 4xx and the reason: unknown projection or route, a state the runner refuses, no Kafka, a bad position', async () => {
    await start();
    const refusal = async (res: Response) => ({ status: res.status, error: ((await res.json()) as { error: string }).error });
    expect(await refusal(await call('POST', '/projections/nope/rebuild'))).toEqual({ status: 404, error: 'unknown projection nope; known: pools' });
    expect(await refusal(await call('DELETE', '/projections'))).toEqual({ status: 404, error: 'no route DELETE /projections' });
    expect(await refusal(await call('POST', '/projections/pools/reset'))).toEqual({ status: 409, error: 'projection pools has no active slot yet' });
    expect((await call('POST', '/projections/pools/retry')).status).toBe(200);
    expect((await refusal(await call('GET', '/kafka'))).status).toBe(409);
    await server.close();

    await start({ topicPrefix: '', brokers: ['127.0.0.1:1'] } as unknown as KafkaRelaySettings);
    expect(await refusal(await call('POST', '/kafka/replay', { after: 'yesterday' }))).toEqual({
      status: 400,
      error: 'after must be a position commit:prepare, got "yesterday"',
    });
    expect(await refusal(await call('POST', '/kafka/replay', '[1'))).toEqual({ status: 400, error: 'the body must be a JSON object' });
  });
});
