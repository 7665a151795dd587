/**
 * One API instance in its own OS process for two-instances.e2e-spec.ts: the auth module (key management over
 * HTTP) plus a `read`-scoped probe, over the PostgreSQL schema and Redis prefix the test names, composed with
 * createApiAuth exactly as the production roots do. Prints `listening <port>` once it accepts requests; exits on
 * SIGTERM.
 *   PROBE_PG_SCHEMA=… PROBE_RL_PREFIX=… node -r ./scripts/register.js libs/api-http/src/testing/probe-api.process.ts
 */
import { Controller, Get, Module } from '@nestjs/common';
import { walletEvents } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { RedisRateLimiter } from '@dob/rate-limit';
import { HealthRegistry } from '@dob/runtime';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL } from '../../../sql/src/testing/test-databases';
import { createApiApp } from '../bootstrap';
import { ok } from '../http/envelope';
import { createApiAuth } from '../access/create-api-auth';
import { CurrentAgent } from '../access/current-agent.decorator';
import type { AgentPrincipal } from '../access/agent-principal';
import { RequireScope } from '../access/require-scope.decorator';

@RequireScope('read')
@Controller('probe')
class ProbeController {
  @Get()
  read(@CurrentAgent() agent: AgentPrincipal) {
    return ok({ keyId: agent.keyId, pid: process.pid });
  }
}
@Module({ controllers: [ProbeController] })
class ProbeModule {}

async function main(): Promise<void> {
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema: process.env.PROBE_PG_SCHEMA! });
  const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
  const auth = await createApiAuth({
    db,
    events,
    rateLimiter: new RedisRateLimiter({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: process.env.PROBE_RL_PREFIX! }),
    jwt: { secret: 'shared-secret-of-both-processes' },
    ipRateLimitRpm: 100_000,
  });
  const app = await createApiApp({ health: new HealthRegistry(), auth }, { logger: false, modules: [ProbeModule] });
  await app.listen(0, '127.0.0.1');
  console.log(`listening ${new URL(await app.getUrl()).port}`);
  process.once('SIGTERM', () => {
    void (async () => {
      await app.close();
      await auth.close();
      await events.close();
      await db.close();
      process.exit(0);
    })();
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
