/**
 * What the API-key guard and the Redis rate limiter cost per request: one trivial endpoint served twice in the
 * same run — once behind @RequireScope('read') with the request gate (SHA-256 + the key from the in-process
 * SharedKeyCache under its epoch lease + the Redis limiter, which for this busy key admits from grants refilled ahead;
 * PostgreSQL only on a cache miss or an epoch read), once open (no auth deps at all). autocannon, no pipelining, same connections.
 * Profile: `node --cpu-prof -r @swc-node/register bench/auth.bench.ts`, then `bench/cpu-profile-top.ts <profile> 40 4`
 * (the last measured run is a guarded one).
 *   node -r @swc-node/register bench/auth.bench.ts   → bench/results/auth.json
 */
import { randomBytes } from 'node:crypto';
import { Controller, Get, Module } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Keypair } from '@stellar/stellar-sdk';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { RedisRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
import { createApiApp } from '../libs/api-http/src/bootstrap';
import { createApiAuth, RequireScope } from '../libs/api-http/src/access';
import { runWhenMain, startMachineRecord, writeBenchResult } from './bench-report';
import { closedLoopRun } from './closed-loop';
import { pairedRounds } from './paired-rounds';

const DURATION_S = 3;
const CONNECTIONS = 10;
/** Open and guarded are measured ROUNDS times each, alternating (bench/paired-rounds.ts). */
const ROUNDS = 9;

@Controller('bench')
class OpenController {
  @Get('open')
  get() {
    return { success: true, data: { ok: true } };
  }
}
@RequireScope('read')
@Controller('bench')
class GuardedController {
  @Get('guarded')
  get() {
    return { success: true, data: { ok: true } };
  }
}
@Module({ controllers: [OpenController] })
class OpenModule {}
@Module({ controllers: [GuardedController] })
class GuardedModule {}

async function listen(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

const cannon = (url: string, headers: Record<string, string>) => closedLoopRun(url, headers, { connections: CONNECTIONS, durationSeconds: DURATION_S });

export async function run(): Promise<object> {
  const machine = startMachineRecord();
  const schema = `bench_auth_${randomBytes(4).toString('hex')}`;
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
  const auth = await createApiAuth({ db, events, rateLimiter: new RedisRateLimiter({ prefix: `bench:rl:${schema}:` }), jwt: { secret: 'bench' } });
  const guardedApp = await createApiApp({ health: new HealthRegistry(), auth }, { logger: false, modules: [GuardedModule] });
  const openApp = await createApiApp({ health: new HealthRegistry() }, { logger: false, modules: [OpenModule] });
  try {
    const { key, record } = await auth.keys.createKey(Keypair.random().publicKey(), { label: 'bench', scopes: ['read'], origin: 'key_management' });
    // Enterprise tier high enough that the bench never hits 429: we measure the cost of checking, not refusing.
    await auth.keys.setRateLimit(record.keyId, 1_000_000);
    const guardedUrl = `${await listen(guardedApp)}/api/agent/bench/guarded`;
    const openUrl = `${await listen(openApp)}/api/agent/bench/open`;
    await cannon(openUrl, {}); // warm-up both (JIT, connection pools)
    await cannon(guardedUrl, { 'x-api-key': key });
    const paired = await pairedRounds(
      ROUNDS,
      () => cannon(guardedUrl, { 'x-api-key': key }),
      () => cannon(openUrl, {}),
      (r) => r.requestsPerSecond,
    );
    const { measured: guarded, baseline: open } = paired.best;
    const result = {
      benchmark: 'auth',
      at: new Date().toISOString(),
      machine: machine('shared 2-core machine; autocannon runs in the same process as both apps; PostgreSQL and Redis local'),
      parameters: { durationSeconds: DURATION_S, rounds: ROUNDS, connections: CONNECTIONS, pipelining: 1 },
      /** open and guardedWithRedisLimiter below are the best of ROUNDS runs each (bench/paired-rounds.ts). */
      rounds: paired.rounds.map((r) => ({
        open: r.baseline.requestsPerSecond,
        guarded: r.measured.requestsPerSecond,
        ratio: r.ratio,
        cpuMicrosPerRequest: { open: r.baseline.cpuMicrosPerRequest, guarded: r.measured.cpuMicrosPerRequest },
      })),
      open,
      guardedWithRedisLimiter: guarded,
      overhead: {
        throughputRatio: paired.best.ratio,
        medianRoundRatio: paired.medianRatio,
        /** Lowest CPU per request of each (this process: apps + autocannon; Redis not included): open / guarded. */
        cpuPerRequestRatio: +(
          Math.min(...paired.rounds.map((r) => r.baseline.cpuMicrosPerRequest)) / Math.min(...paired.rounds.map((r) => r.measured.cpuMicrosPerRequest))
        ).toFixed(3),
        addedMeanLatencyMs: +(guarded.latencyMs.mean - open.latencyMs.mean).toFixed(2),
      },
    };
    writeBenchResult('auth', result);
    return result;
  } finally {
    await guardedApp.close();
    await openApp.close();
    await auth.close();
    await events.close();
    await db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.close();
  }
}

runWhenMain(module, run);
