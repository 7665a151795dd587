/**
 * Load test of the per-key rate limit (issue 6): two listening API instances over one PostgreSQL and the real
 * Redis; greedy clients hammer one key through both instances while a pacing client sends rpm/60 requests per
 * second on another key. Every admission is recorded with the limiter's own clock (Redis TIME), then audited:
 * the most admissions in any closed 60-s window must be ≤ rpm + 10 and the pacing client must never be refused.
 *   node -r @swc-node/register test/rate-limit.load.ts [seconds=120]   → bench/results/rate-limit-load.json
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Controller, Get, Module } from '@nestjs/common';
import { Keypair } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { BURST, maxAdmissionsPerWindow, RedisRateLimiter, type RateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { createApiApp } from '../libs/api-http/src/bootstrap';
import { createApiAuth, RequireScope } from '../libs/api-http/src/access';

@RequireScope('read')
@Controller('probe')
class ProbeController {
  @Get()
  get() {
    return { success: true, data: {} };
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

/** Records every admission's limiter timestamp per bucket. */
class RecordingLimiter implements RateLimiter {
  readonly admitted = new Map<string, number[]>();
  readonly refused = new Map<string, number>();
  constructor(private readonly inner: RateLimiter) {}
  async consume(bucket: string, rpm: number) {
    const d = await this.inner.consume(bucket, rpm);
    if (d.allowed) (this.admitted.get(bucket) ?? this.admitted.set(bucket, []).get(bucket)!).push(d.decidedAt);
    else this.refused.set(bucket, (this.refused.get(bucket) ?? 0) + 1);
    return d;
  }
  close() {
    return this.inner.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(seconds = Number(process.argv[2] ?? 120)): Promise<Record<string, unknown>> {
  const rpm = 60;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: `load_${randomBytes(5).toString('hex')}` });
  const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
  const prefix = `load:rl:${randomBytes(5).toString('hex')}:`;
  const limiters: RecordingLimiter[] = [];
  const apps = [];
  const urls: string[] = [];
  let keys!: Awaited<ReturnType<typeof createApiAuth>>['keys'];
  const closers: (() => Promise<void>)[] = [];
  for (let i = 0; i < 2; i++) {
    const limiter = new RecordingLimiter(new RedisRateLimiter({ prefix }));
    limiters.push(limiter);
    const auth = await createApiAuth({ db, events, rateLimiter: limiter, jwt: { secret: 'load-test-secret' }, ipRateLimitRpm: 1_000_000 });
    keys = auth.keys;
    const app = await createApiApp({ health: new HealthRegistry(), auth }, { logger: false, modules: [ProbeModule] });
    await app.listen(0, '127.0.0.1');
    urls.push(`${await app.getUrl()}/api/agent/probe`.replace('[::1]', '127.0.0.1'));
    apps.push(app);
    closers.push(async () => (await app.close(), await auth.close()));
  }
  const wallet = Keypair.random().publicKey();
  const greedy = await keys.createKey(wallet, { label: 'greedy', scopes: ['read'], origin: 'key_management' });
  const pacer = await keys.createKey(wallet, { label: 'pacer', scopes: ['read'], origin: 'key_management' });
  const statuses: Record<string, number> = {};
  const end = Date.now() + seconds * 1000;
  let i = 0;
  const hit = async (key: string) => {
    const r = await fetch(urls[i++ % 2]!, { headers: { 'x-api-key': key } });
    await r.arrayBuffer();
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return r.status;
  };
  const greedyClients = Array.from({ length: 6 }, async () => {
    while (Date.now() < end) {
      await hit(greedy.key);
      await sleep(20 + Math.random() * 40);
    }
  });
  let pacerRefused = 0;
  let pacerSent = 0;
  const pacing = (async () => {
    const start = Date.now();
    for (let n = 0; start + n * (60_000 / rpm) < end; n++) {
      await sleep(Math.max(0, start + n * (60_000 / rpm) - Date.now()));
      pacerSent++;
      if ((await hit(pacer.key)) !== 200) pacerRefused++;
    }
  })();
  await Promise.all([...greedyClients, pacing]);
  const merge = (bucket: string) => limiters.flatMap((l) => l.admitted.get(bucket) ?? []);
  const greedyAdmitted = merge(`key:${greedy.record.keyId}`);
  const record = {
    test: 'rate-limit-load',
    ranAt: new Date().toISOString(),
    durationSeconds: seconds,
    setup:
      'two listening API instances (Fastify) over one PostgreSQL, shared Redis sliding-window limiter; 6 greedy clients on one key, 1 pacing client on another',
    rpm,
    burst: BURST,
    cap: rpm + BURST,
    statuses,
    greedy: {
      admitted: greedyAdmitted.length,
      refused: limiters.reduce((n, l) => n + (l.refused.get(`key:${greedy.record.keyId}`) ?? 0), 0),
      maxAdmissionsInAnyClosed60sWindow: maxAdmissionsPerWindow(greedyAdmitted),
    },
    pacer: { sent: pacerSent, refused: pacerRefused, maxAdmissionsInAnyClosed60sWindow: maxAdmissionsPerWindow(merge(`key:${pacer.record.keyId}`)) },
    invariantsHold: maxAdmissionsPerWindow(greedyAdmitted) <= rpm + BURST && pacerRefused === 0,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` },
  };
  for (const c of closers) await c();
  await events.close();
  await db.close();
  const out = path.join(__dirname, '..', 'bench', 'results', 'rate-limit-load.json');
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(record, null, 2) + '\n');
  return record;
}

if (require.main === module) {
  run().then(
    (r) => {
      console.log(JSON.stringify(r, null, 2));
      process.exit((r as { invariantsHold: boolean }).invariantsHold ? 0 : 1);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
