import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ANALYST_TOPICS } from '../libs/kafka-relay/src/analyst-topics';
import { deleteTestTopics } from '../libs/kafka-relay/src/testing/topic-reader';
import { freePort } from './app-processes';
import { testServices } from './services';
import { eventually } from './system-waits';

/**
 * The Dockerfile runs `npm run build` and then `node dist/apps/<app>/src/main.js`. No Docker engine runs on our
 * machines, so this test does the same two steps directly: it builds, then starts each app from dist/ with the
 * node that runs the tests (Node 24, as in the image) and checks it answers.
 */
const root = resolve(__dirname, '..');
const run = promisify(execFile);
const children: ChildProcess[] = [];
/** Each started child's output so far, for failure messages. */
const outputs = new Map<ChildProcess, () => string>();
let dataDir: string;
let devnetUrl: string;
const database = `build_${randomBytes(4).toString('hex')}`;

async function admin<T>(fn: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: testServices.postgres });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Starts `node dist/apps/<app>/src/main.js` with only the given variables (plus PATH), output kept for failures. */
function startApp(app: string, env: Record<string, string>, args: string[] = []): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [join(root, 'dist/apps', app, 'src/main.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  children.push(child);
  outputs.set(child, () => output);
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

async function answers(url: string, init?: RequestInit): Promise<Response | undefined> {
  const r = await fetch(url, init).catch(() => undefined);
  return r?.ok ? r : undefined;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dob-build-'));
  await run('npm', ['run', 'build'], { cwd: root, timeout: 300_000 });
}, 320_000);

afterAll(async () => {
  await Promise.all(children.map(stop));
  rmSync(dataDir, { recursive: true, force: true });
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  // The relay's topics on the shared broker (KAFKA_TOPIC_PREFIX below): left behind, every run added twelve partitions.
  await deleteTestTopics(
    testServices.kafkaBrokers,
    ANALYST_TOPICS.map((t) => `${database}.${t.topic}`),
  );
});

describe('the built output the Dockerfile runs', () => {
  it('devnet: serves Stellar JSON-RPC', async () => {
    const port = await freePort();
    const devnet = startApp('devnet', { DATA_DIR: join(dataDir, 'devnet'), DEVNET_PORT: String(port) });
    const health = await eventually(
      `devnet from dist to answer getHealth\n${devnet.output()}`,
      async () => {
        const r = await answers(`http://127.0.0.1:${port}/rpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth' }),
        });
        return r && ((await r.json()) as { result?: { status: string } }).result;
      },
      60_000,
    );
    expect(health.status).toBe('healthy');
    devnetUrl = `http://127.0.0.1:${port}`;
  });

  it('api, indexer, projector, notifier and relay alone on PostgreSQL: each answers its /health', async () => {
    await admin((c) => c.query(`CREATE DATABASE ${database}`));
    const shared = {
      DATABASE_URL: testServices.postgres.replace(/\/[^/]*$/, `/${database}`),
      JWT_SECRET: 'b'.repeat(48),
      WEBHOOK_SECRET_KEY: 'cd'.repeat(32),
      DEVNET_URL: devnetUrl,
      LOG_LEVEL: 'warn',
    };
    const apps: [string, Record<string, string>, string][] = [];
    for (const app of ['indexer', 'projector', 'notifier']) {
      const port = await freePort();
      apps.push([app, { ...shared, HEALTH_PORT: String(port) }, `http://127.0.0.1:${port}/health`]);
    }
    const relayPort = await freePort();
    apps.push([
      'relay',
      { ...shared, KAFKA_BROKERS: testServices.kafkaBrokers.join(','), KAFKA_TOPIC_PREFIX: `${database}.`, RELAY_HEALTH_PORT: String(relayPort) },
      `http://127.0.0.1:${relayPort}/health`,
    ]);
    const apiPort = await freePort();
    apps.push(['api', { ...shared, PORT: String(apiPort) }, `http://127.0.0.1:${apiPort}/health/live`]);
    // One after another: the first creates the schema the others then find (each also migrates under a lock).
    for (const [app, env, url] of apps) {
      const started = startApp(app, env);
      await eventually(`${app} from dist to answer ${url}\n${started.output()}`, async () => (await fetch(url).catch(() => undefined))?.status, 90_000);
      expect(started.child.exitCode).toBeNull();
    }
  });

  it('the apps alone stop cleanly on SIGTERM', async () => {
    const running = children.filter((c) => c.exitCode === null);
    // An app that already exited fails here with its exit code and output (seen once in eight runs, cause unknown).
    const exited = children.filter((c) => c.exitCode !== null).map((c) => `${c.spawnargs.join(' ')} exited ${c.exitCode}:\n${outputs.get(c)?.() ?? ''}`);
    expect({ running: running.length, exited }).toEqual({ running: expect.any(Number), exited: [] });
    expect(running.length).toBeGreaterThanOrEqual(6);
    expect(await Promise.all(running.map(stop))).toEqual(running.map(() => 0));
  });

  it('all (npm start): serves the Agent API and becomes ready; ops then reads its data folder', async () => {
    const [port, devnetPort] = [await freePort(), await freePort()];
    const dir = join(dataDir, 'all');
    const system = startApp('all', { DATA_DIR: dir, PORT: String(port), DEVNET_PORT: String(devnetPort) });
    await eventually(`the system from dist to be ready\n${system.output()}`, () => answers(`http://127.0.0.1:${port}/health`), 120_000);
    const openapi = (await (await fetch(`http://127.0.0.1:${port}/api/agent/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/api/agent/pools', '/api/agent/marketplace/listings']));
    // Without a key the API answers in the spec's envelope: the whole Nest pipeline runs from the built output.
    const refused = await fetch(`http://127.0.0.1:${port}/api/agent/pools`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ success: false, error: { code: expect.any(String) } });
    expect(await stop(system.child)).toBe(0);

    const { stdout } = await run(process.execPath, [join(root, 'dist/apps/ops/src/main.js'), 'projections', 'status'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dir },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/pools/);
  });
});
