import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@stellar/stellar-sdk';
import { createAgentClient, registerAgent } from '@dobprotocol/agent-client';
import { ANALYST_TOPICS } from '@dob/kafka-relay';
import { deleteTestTopics, startTopicReader } from '../libs/kafka-relay/src/testing/topic-reader';
import { ROOT, freePort, startApp, until, type AppProcess } from './app-processes';
import { testServices } from './services';

const run = promisify(execFile);

/**
 * Issue 30 item 5, as an operator does it: `npm start` on the embedded default holds its data folder, and
 * `npm run ops -- projections status | rebuild` work anyway — through the running system's admin endpoint, authorized
 * by `<DATA_DIR>/admin.json` (0600) — while the API keeps answering from the serving slot.
 */
jest.setTimeout(300_000);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('ops against the running default (npm start holds the folder)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-running-e2e-'));
  // The relay publishes to the shared Kafka under topics of this run only.
  const prefix = `ops_e2e_${randomBytes(4).toString('hex')}.`;
  const topics = ANALYST_TOPICS.map((t) => `${prefix}${t.topic}`);
  let app: AppProcess;
  let api: string;

  /** `npm run ops -- …` as an operator types it, on the same folder. */
  const ops = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run('npm', ['run', '--silent', 'ops', '--', ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir },
        timeout: 180_000,
      });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const failed = e as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  beforeAll(async () => {
    const port = await freePort();
    // Key-less calls (challenge, register) from one IP: room for them; the polling below uses an API key.
    app = startApp('start', {
      DATA_DIR: dataDir,
      PORT: String(port),
      DEVNET_PORT: String(await freePort()),
      API_IP_RATE_LIMIT_RPM: '10000',
      KAFKA_BROKERS: testServices.kafkaBrokers.join(','),
      KAFKA_TOPIC_PREFIX: prefix,
    });
    await until('npm start ready', async () => (await fetch(`http://127.0.0.1:${port}/health`)).status === 200, 150_000, [app]);
    api = `http://127.0.0.1:${port}/api/agent`;
  });

  afterAll(async () => {
    await app?.stop(30_000);
    rmSync(dataDir, { recursive: true, force: true });
    await deleteTestTopics(testServices.kafkaBrokers, topics);
  });

  it('publishes the admin endpoint owner-only, and the endpoint refuses requests without its token', async () => {
    const file = join(dataDir, 'admin.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const { url, token } = JSON.parse(readFileSync(file, 'utf8')) as { url: string; token: string };
    expect(new URL(url).hostname).toBe('127.0.0.1');

    const without = await fetch(`${url}/projections`);
    expect(without.status).toBe(401);
    const wrong = await fetch(`${url}/projections`, { headers: { authorization: `Bearer ${token.slice(1)}x` } });
    expect(wrong.status).toBe(403);
    const rebuildWithout = await fetch(`${url}/projections/pools/rebuild`, { method: 'POST' });
    expect(rebuildWithout.status).toBe(401);
    const right = await fetch(`${url}/projections`, { headers: { authorization: `Bearer ${token}` } });
    expect(right.status).toBe(200);
  });

  it('rebuilds a projection while the API keeps answering from the serving slot, and status shows the switch', async () => {
    // An agent's read key, obtained as examples/agent-buy.ts does (the typed client; SEP-53 challenge signed locally).
    const { apiKey: key } = await registerAgent(createAgentClient({ baseUrl: api }), Keypair.random(), { label: 'ops e2e', scopes: ['read'] });
    const readPools = async () => {
      const res = await fetch(`${api}/pools?network_id=9&limit=100`, { headers: { 'x-api-key': key } });
      return { status: res.status, total: ((await res.json()) as Json).meta?.total as number };
    };
    const before = await readPools();
    expect(before.status).toBe(200);
    expect(before.total).toBeGreaterThan(0);

    const statusBefore = await ops('projections', 'status', '--json');
    expect(statusBefore.code).toBe(0);
    const poolsBefore = (JSON.parse(statusBefore.stdout) as Json[]).find((p) => p.name === 'pools');
    expect(poolsBefore.active).toMatchObject({ status: 'live' });

    // Poll the API throughout the rebuild: every answer must be 200 with the whole model (never a partial one).
    // Once a second: within the key's default 60 requests a minute however long the CLI takes.
    const answers: { status: number; total: number; during: boolean }[] = [];
    let rebuilding = true;
    const polling = (async () => {
      while (rebuilding) {
        answers.push({ ...(await readPools()), during: rebuilding });
        await new Promise((r) => setTimeout(r, 1_000));
      }
    })();
    const rebuild = await ops('projections', 'rebuild', 'pools').finally(() => (rebuilding = false));
    await polling;

    expect(rebuild.stderr).not.toContain('in use');
    expect(rebuild.code).toBe(0);
    const from = poolsBefore.active.slot;
    expect(rebuild.stdout).toContain(`switched pools to v${from.version} g${from.generation + 1} (from v${from.version} g${from.generation})`);
    expect(answers.filter((a) => a.during).length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200 || a.total < before.total)).toEqual([]);
    expect((await readPools()).status).toBe(200);

    const statusAfter = await ops('projections', 'status');
    expect(statusAfter.code).toBe(0);
    expect(statusAfter.stdout).toMatch(new RegExp(`^pools +v${from.version} g${from.generation + 1} +live`, 'm'));
    expect(app.output()).toContain(`pools: switched to pools@v${from.version}`);
  });

  it("reports the relay's status and replays to Kafka through the running system (its own KAFKA_* settings)", async () => {
    const { url, token } = JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')) as { url: string; token: string };
    await until(
      'the relay published the seeded events',
      async () => ((await (await fetch(`${url}/kafka`, { headers: { authorization: `Bearer ${token}` } })).json()) as Json).eventsPublished > 0,
      60_000,
      [app],
    );
    const status = await ops('kafka', 'status', '--json');
    expect(status.code).toBe(0);
    const published = (JSON.parse(status.stdout) as Json).eventsPublished as number;
    expect(published).toBeGreaterThan(0);

    const replay = await ops('kafka', 'replay', '--from', 'beginning');
    expect(replay.code).toBe(0);
    const replayed = Number(/re-published (\d+) events/.exec(replay.stdout)?.[1]);
    expect(replayed).toBeGreaterThanOrEqual(published);

    // Every replayed event is on its topic twice now: once from the relay, once from the replay.
    const reader = await startTopicReader(testServices.kafkaBrokers, topics);
    try {
      await reader.waitFor(
        `${replayed} events twice`,
        (messages) => {
          const copies = new Map<string, number>();
          for (const m of messages) copies.set(m.headers.ce_id!, (copies.get(m.headers.ce_id!) ?? 0) + 1);
          return [...copies.values()].filter((n) => n >= 2).length >= replayed;
        },
        60_000,
      );
    } finally {
      await reader.stop();
    }
  });

  it('says what the CLI needs when the admin token file is gone, and removes the file on stop', async () => {
    const file = join(dataDir, 'admin.json');
    const saved = readFileSync(file);
    rmSync(file);
    try {
      const refused = await ops('projections', 'status');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('stop `npm start` first');
    } finally {
      writeFileSync(file, saved, { mode: 0o600 });
    }
    expect(await app.stop(30_000)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dataDir, 'LOCK'))).toBe(false);
  });
});
