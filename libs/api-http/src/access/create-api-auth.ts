import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { createSqlAuth } from '@dob/auth';
import type { EventStore } from '@dob/event-store';
import { InProcessRateLimiter, type RateLimiter } from '@dob/rate-limit';
import type { SqlDatabase } from '@dob/sql';
import type { ApiAuthDependencies, JwtSettings } from './api-auth.dependencies';

export interface ApiAuthOptions {
  readonly db: SqlDatabase;
  /** Must register `walletEvents` (from @dob/auth) in its catalog if it validates payloads. */
  readonly events: EventStore;
  /** Default: in-process (embedded, single instance). Pass a RedisRateLimiter when several instances run. */
  readonly rateLimiter?: RateLimiter;
  /** Default: a random per-process secret (fine for one embedded instance; pass a shared one otherwise). */
  readonly jwt?: Partial<JwtSettings>;
  readonly ipRateLimitRpm?: number;
  readonly clock?: () => number;
  readonly lastUsedFlushMs?: number;
}

/** Builds ApiAuthDependencies over SQL + the event store; `close()` flushes last-used times and the limiter. */
export async function createApiAuth(options: ApiAuthOptions): Promise<ApiAuthDependencies & { close(): Promise<void> }> {
  const rateLimiter = options.rateLimiter ?? new InProcessRateLimiter(options.clock);
  const sqlAuth = await createSqlAuth(options.db, options.events, { clock: options.clock, lastUsedFlushMs: options.lastUsedFlushMs });
  if (!options.jwt?.secret) new Logger('auth').warn('No JWT secret configured: using a random one (tokens die with this process)');
  return {
    ...sqlAuth,
    rateLimiter,
    jwt: {
      secret: options.jwt?.secret ?? randomBytes(32).toString('hex'),
      issuer: options.jwt?.issuer ?? 'dob-agent-api',
      audience: options.jwt?.audience ?? 'dob-agent-api/key-management',
      ttlSeconds: options.jwt?.ttlSeconds ?? 900,
    },
    ipRateLimitRpm: options.ipRateLimitRpm ?? 60,
    async close() {
      await sqlAuth.close();
      await rateLimiter.close();
    },
  };
}
