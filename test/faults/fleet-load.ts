import { nativeToScVal, type Keypair } from '@stellar/stellar-sdk';
import { DEFAULT_SEED, devnetKeypair, type RunningDevnet } from '@dob/devnet';
import { SeedSubmitter } from '../../libs/devnet/src/seeder/seed-submitter';

/** One agent read of the steady load: which API, how it was answered, how long it took. */
export interface Sample {
  readonly at: number;
  readonly api: number;
  readonly status: number | 'refused' | 'timeout';
  readonly ms: number;
  readonly retryAfter: string | null;
  readonly code?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Agent reads on the APIs in turn (`GET /pools`), one every 50 ms, each recorded, while `running()` and below `max`. */
export async function readLoad(o: { running: () => boolean; apis: () => readonly number[]; key: string; samples: Sample[]; max: number }): Promise<void> {
  let i = 0;
  while (o.running() && o.samples.length < o.max) {
    const ports = o.apis();
    const api = i++ % ports.length;
    const started = Date.now();
    try {
      const r = await fetch(`http://127.0.0.1:${ports[api]}/api/agent/pools?limit=5`, { headers: { 'x-api-key': o.key }, signal: AbortSignal.timeout(5000) });
      const body = (await r.json().catch(() => ({}))) as { error?: { code?: string } };
      o.samples.push({ at: started, api, status: r.status, ms: Date.now() - started, retryAfter: r.headers.get('retry-after'), code: body.error?.code });
    } catch (e) {
      o.samples.push({ at: started, api, status: (e as Error).name === 'TimeoutError' ? 'timeout' : 'refused', ms: Date.now() - started, retryAfter: null });
    }
    await sleep(50);
  }
}

/**
 * Domain events on the chain the whole run: a share transfer a second between two holders of a seeded V1 pool,
 * submitted on the devnet directly (not through the API), while `running()`, none while `paused()`, at most `max`.
 */
export async function chainTransfers(
  devnet: RunningDevnet,
  o: { running: () => boolean; paused: () => boolean; max: number; counter: { n: number } },
): Promise<void> {
  const submitter = new SeedSubmitter(devnet.chain);
  const i = devnet.manifest.pools.findIndex((p) => p.contract_kind.startsWith('splitter_v1'));
  const pool = devnet.manifest.pools[i]!.pool_address;
  const holder = (n: number) => devnetKeypair(`seed-${DEFAULT_SEED}/pool-${i}/holder-${n}`);
  const addr = (k: Keypair) => nativeToScVal(k.publicKey(), { type: 'address' });
  while (o.running() && o.counter.n < o.max) {
    if (o.paused()) {
      await sleep(200);
      continue;
    }
    const [from, to] = o.counter.n % 2 ? [holder(0), holder(1)] : [holder(1), holder(0)];
    submitter.call({ signer: from, contractId: pool, fn: 'transfer_shares', args: [addr(from), addr(to), nativeToScVal(1n, { type: 'i128' })] });
    o.counter.n += 1;
    await sleep(1000);
  }
}
