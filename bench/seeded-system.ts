/**
 * The benchmarks that run the whole system as `npm start` does (rss, start-flags) share its set-up: a first start on
 * an empty data folder (the devnet seeds the chain, the indexer and projections catch up), an agent key registered
 * through the API, the system stopped, and the key's tier raised with `npm run ops -- keys set-rate-limit` — a fresh
 * key has the default 60 rpm, and the ops CLI needs the embedded folder free. Later starts resume on that folder.
 */
import { spawnSync } from 'node:child_process';
import { Keypair } from '@stellar/stellar-sdk';
import { ROOT, startApp, until, type AppProcess } from '../test/app-processes';

export interface SeededSystem {
  readonly key: string;
  /** From spawning `npm start` on the empty folder to /health answering 200. */
  readonly firstStartHealthyMs: number;
}

/** Registers a read-scoped agent key through the challenge/register flow, signing as a fresh wallet. */
export async function registerAgentKey(base: string, label: string): Promise<{ key: string; keyId: string }> {
  const kp = Keypair.random();
  const wallet = kp.publicKey();
  const challenge = (await (await fetch(`${base}/api/agent/auth/challenge/${wallet}`)).json()) as { data: { message: string } };
  const signature = Buffer.from(kp.signMessage(challenge.data.message)).toString('hex');
  const r = await fetch(`${base}/api/agent/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet, signature, label, scopes: ['read'] }),
  });
  const body = (await r.json()) as { data: { api_key: { key: string; key_id: string } } };
  if (r.status !== 201) throw new Error(`register answered ${r.status}: ${JSON.stringify(body)}`);
  return { key: body.data.api_key.key, keyId: body.data.api_key.key_id };
}

/** Waits for the system's /health to answer 200 (the first start seeds, so up to five minutes). */
export const healthy = (base: string, app: AppProcess, what: string) => until(what, async () => (await fetch(`${base}/health`)).status === 200, 300_000, [app]);

/**
 * Seeds `env.DATA_DIR` with `npm start` and leaves it stopped, with a key whose tier allows the benchmark's load.
 * `whileSeeded` runs once the seeded system is healthy, before the key is registered (the rss bench samples there).
 */
export async function seedSystem(o: {
  base: string;
  env: Record<string, string>;
  label: string;
  whileSeeded?: (app: AppProcess) => void;
}): Promise<SeededSystem> {
  const t0 = Date.now();
  const app = startApp('start', o.env);
  try {
    await healthy(o.base, app, 'npm start (seeding) ready');
    const firstStartHealthyMs = Date.now() - t0;
    o.whileSeeded?.(app);
    const { key, keyId } = await registerAgentKey(o.base, o.label);
    await app.stop(30_000, 'SIGINT');
    const ops = spawnSync('npm', ['run', '--silent', 'ops', '--', 'keys', 'set-rate-limit', keyId, '1000000'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: o.env.DATA_DIR },
      encoding: 'utf8',
    });
    if (ops.status !== 0) throw new Error(`ops keys set-rate-limit failed: ${ops.stdout}${ops.stderr}`);
    return { key, firstStartHealthyMs };
  } finally {
    await app.stop(30_000, 'SIGINT');
  }
}
