import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock, RateLimitDecision, RateLimiter } from '../rate-limiter.port';
import { assertRpm, capacity, decision, WINDOW_MS } from '../sliding-window-rule';
import { clampGrant, GRANT_LIFETIME_MS, grantMargin, grantsApply, nextGrantSize, refillAheadSize } from './admission-grants';
import { LocalGrant } from './local-grant';
import { ADMIT_LUA, RETURN_LUA } from './sliding-window.lua';

export interface RedisRateLimiterOptions {
  /** e.g. redis://127.0.0.1:6379; or pass an existing client (not closed by close()). */
  readonly url?: string;
  readonly client?: Redis;
  /** Key namespace, so several deployments (or test runs) can share one Redis. */
  readonly prefix?: string;
  /**
   * Tests only: drive time from the client (server and local time alike). Default: the Redis server clock, shared
   * by every instance, and a monotonic local clock for grant lifetimes. With a driven clock no timer returns grants:
   * a bucket's next request, returnExpiredGrants() or close() does.
   */
  readonly clock?: Clock;
}

/** Longest a decision waits on Redis (a server frozen or unreachable) before it fails (ms). */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * A client that never holds a request while Redis is away (issue 31: requests were held 5–8 s, then failed with
 * MaxRetriesPerRequestError): commands queue only until the first connection is ready — a limiter is used right
 * after it is made — and fail at once while disconnected after that; each command has a timeout and one retry.
 * Reconnection is ioredis' own, in the background (ioredis README, "Auto-reconnect" and "Offline Queue").
 */
function boundedClient(url: string): Redis {
  const redis = new Redis(url, {
    lazyConnect: false,
    // Auto-pipelining: decisions of concurrent requests issued in one event-loop turn go out in one write (the
    // profile of `npm run bench -- auth` showed the process idle or in socket writes for most of a guarded request).
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
  });
  redis.once('ready', () => {
    redis.options.enableOfflineQueue = false;
  });
  redis.on('error', () => undefined); // reported through failed decisions; without a listener ioredis logs each retry
  return redis;
}

type AdmitCommand = (
  key: string,
  now: string,
  window: number,
  cap: number,
  member: string,
  wanted: number,
  lifetime: number,
  margin: number,
  mode: '' | 'grant-only',
) => Promise<number[]>;
type ReturnCommand = (key: string, base: string, at: number, granted: number, ...used: number[]) => Promise<number>;

/** What a grant request brought: a grant (everyone takes from it), or one admission/refusal for its sender. */
type GrantOutcome = { readonly kind: 'grant'; readonly grant: LocalGrant } | { readonly kind: 'single' | 'refused'; readonly decision: RateLimitDecision };

/** This instance's side of one busy bucket. */
interface BucketGrants {
  readonly rpm: number;
  grant?: LocalGrant;
  /** A grant refilled ahead while `grant` still served: it takes over when `grant` is used up or expires. */
  next?: LocalGrant;
  /** The one grant request in flight; concurrent requests of the bucket wait on it. */
  pending?: Promise<GrantOutcome>;
  waiting: number;
  nextSize: number;
  /** Near the cap grants are refused by the margin: until then requests go to Redis one by one, concurrently. */
  singlesUntil: number;
  idleSince: number;
}

/**
 * The production limiter: one sorted set per bucket in Redis, shared by every API instance. Buckets below
 * GRANT_MIN_RPM run one script per request (exact shared `remaining`); busier buckets take admission grants and
 * admit locally from them (admission-grants.ts has the rule and the proof that the cap stays exact).
 */
export class RedisRateLimiter implements RateLimiter {
  /** The client decisions run on; others may reuse it (or a duplicate) for the same server. */
  readonly redis: Redis;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  private readonly admit: AdmitCommand;
  private readonly giveBack: ReturnCommand;
  private readonly local: Clock;
  private readonly memberPrefix = randomBytes(9).toString('base64url') + ':';
  private readonly buckets = new Map<string, BucketGrants>();
  private readonly returns = new Set<Promise<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  private members = 0;
  private calls = 0;
  private waits = 0;

  constructor(private readonly options: RedisRateLimiterOptions = {}) {
    this.ownsClient = !options.client;
    this.redis = options.client ?? boundedClient(options.url ?? 'redis://127.0.0.1:6379');
    this.prefix = options.prefix ?? 'rl:';
    this.local = options.clock ?? (() => performance.now());
    // defineCommand sends EVALSHA and falls back to EVAL once on NOSCRIPT (ioredis docs, "Lua Scripting").
    this.redis.defineCommand('dobRateLimitAdmit', { numberOfKeys: 1, lua: ADMIT_LUA });
    this.redis.defineCommand('dobRateLimitReturn', { numberOfKeys: 1, lua: RETURN_LUA });
    const commands = this.redis as unknown as { dobRateLimitAdmit: AdmitCommand; dobRateLimitReturn: ReturnCommand };
    this.admit = commands.dobRateLimitAdmit.bind(this.redis);
    this.giveBack = commands.dobRateLimitReturn.bind(this.redis);
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS);
    this.sweeper.unref();
  }

  /** Scripts this instance has run (ADMIT and RETURN): tests compare it with the requests decided. */
  get scriptCalls(): number {
    return this.calls;
  }

  /** Requests of granted buckets that waited for a grant request (their own or one in flight). */
  get grantWaits(): number {
    return this.waits;
  }

  async consume(bucket: string, rpm: number): Promise<RateLimitDecision> {
    assertRpm(rpm);
    if (!grantsApply(rpm)) return this.admitOne(bucket, rpm);
    let state = this.buckets.get(bucket);
    if (!state || state.rpm !== rpm) {
      if (state) this.finishHeld(bucket, state);
      state = { rpm, waiting: 0, nextSize: 1, singlesUntil: -Infinity, idleSince: this.local() };
      this.buckets.set(bucket, state);
    }
    for (;;) {
      const now = this.local();
      const fromGrant = this.takeFromGrant(bucket, state, now);
      if (fromGrant) return fromGrant;
      const grant = state.grant;
      if (grant) this.finish(bucket, state, grant);
      if (now < state.singlesUntil) return this.admitSingle(bucket, state);
      if (!state.pending) return this.requestGrant(bucket, state);
      state.waiting++;
      this.waits++;
      let outcome: GrantOutcome;
      try {
        outcome = await state.pending;
      } finally {
        state.waiting--; // in each waiter's own turn, so the first to resume sizes the next grant for the others
      }
      if (outcome.kind === 'refused') return { ...outcome.decision };
      if (outcome.kind === 'single') return this.admitSingle(bucket, state);
    }
  }

  /** A granted bucket's admission from the grant this process holds, if one is usable and has room. */
  consumeNow(bucket: string, rpm: number): RateLimitDecision | undefined {
    const state = this.buckets.get(bucket);
    return state && state.rpm === rpm && grantsApply(rpm) ? this.takeFromGrant(bucket, state, this.local()) : undefined;
  }

  /** One admission from the bucket's usable grant (promoting the next one first if the current is spent), or undefined. */
  private takeFromGrant(bucket: string, state: BucketGrants, now: number): RateLimitDecision | undefined {
    if (state.next && !state.grant?.usableAt(now)) this.promoteNext(bucket, state);
    const grant = state.grant;
    if (!grant?.usableAt(now)) return undefined;
    const d = grant.take(now, state.rpm);
    if (grant.usedUp) this.finish(bucket, state, grant, now - grant.sentAt);
    else this.refillAhead(bucket, state, grant, now);
    return d;
  }

  /** Returns every grant whose lifetime is over (a timer does this per grant unless the clock is driven). */
  returnExpiredGrants(): void {
    const now = this.local();
    for (const [bucket, state] of this.buckets) this.finishHeld(bucket, state, (grant) => !grant.usableAt(now));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    // A grant request still in flight (a refill ahead) installs its grant when it lands: wait for it, then return all.
    await Promise.allSettled([...this.buckets.values()].map((state) => state.pending));
    for (const [bucket, state] of this.buckets) this.finishHeld(bucket, state);
    await Promise.allSettled([...this.returns]);
    this.buckets.clear();
    if (this.ownsClient) await this.redis.quit();
  }

  /** Today's exact rule: one script decides this request alone. */
  private async admitOne(bucket: string, rpm: number): Promise<RateLimitDecision> {
    const [allowed, , count, at, oldest, newest] = await this.runAdmit(bucket, rpm, this.nextMember(), 0);
    return decision(rpm, allowed === 1, count!, oldest!, newest!, at!);
  }

  /** A granted bucket within the margin of its cap: one script per request, concurrently. */
  private async admitSingle(bucket: string, state: BucketGrants): Promise<RateLimitDecision> {
    const d = await this.admitOne(bucket, state.rpm);
    // Full: the next requests wait on one grant request again and are refused together with it.
    if (!d.allowed) state.singlesUntil = -Infinity;
    return d;
  }

  /** The bucket's one grant request; its sender is admitted from the grant, alone, or refused. */
  private async requestGrant(bucket: string, state: BucketGrants): Promise<RateLimitDecision> {
    const rpm = state.rpm;
    this.waits++;
    const outcome = await this.sendGrantRequest(bucket, state, clampGrant(Math.max(state.nextSize, state.waiting + 1), rpm), '');
    if (outcome.kind !== 'grant') return outcome.decision;
    const grant = outcome.grant;
    const now = this.local();
    // Requests waiting on this grant resume after this one, so its first member is still free (the grant holds ≥ 1).
    if (!grant.usableAt(now)) return this.consume(bucket, rpm);
    const d = grant.take(now, rpm);
    if (grant.usedUp) this.finish(bucket, state, grant, now - grant.sentAt);
    return d;
  }

  /** While `grant` still serves: the next grant's request, when refillAheadSize says it is due (no one waits on it). */
  private refillAhead(bucket: string, state: BucketGrants, grant: LocalGrant, now: number): void {
    if (state.pending || state.next) return;
    const wanted = refillAheadSize(grant.size, grant.used.length, now - grant.sentAt, state.nextSize, state.rpm);
    if (wanted > 0) void this.sendGrantRequest(bucket, state, wanted, 'grant-only').catch(() => undefined);
  }

  /**
   * Sends the bucket's one grant request and installs what it brings. 'grant-only' (a refill ahead) admits no one
   * when no grant is left to give; requests waiting on it then go one by one, as near the cap after any refusal.
   */
  private sendGrantRequest(bucket: string, state: BucketGrants, wanted: number, mode: '' | 'grant-only'): Promise<GrantOutcome> {
    const rpm = state.rpm;
    const base = this.nextMember();
    const sentAt = this.local();
    const refillOf = mode === 'grant-only' ? state.grant : undefined;
    const request = this.runAdmit(bucket, rpm, base, wanted, mode).then(
      ([allowed, granted, count, at, oldest, newest]): GrantOutcome => {
        state.pending = undefined;
        state.idleSince = this.local();
        if (granted! > 0) {
          const grant = new LocalGrant(
            base,
            at!,
            sentAt,
            granted!,
            capacity(rpm) - (count! - granted!),
            decision(rpm, true, count!, oldest!, newest!, at!).resetAt,
            refillOf,
          );
          this.install(bucket, state, grant);
          return { kind: 'grant', grant };
        }
        // No grant: the bucket is within the margin of its cap. Until a lifetime passes, decide one by one (after a
        // refill ahead too: it admitted no one, so its waiters are neither admitted nor refused yet).
        const singles = allowed === 1 || mode === 'grant-only';
        if (singles) state.singlesUntil = this.local() + GRANT_LIFETIME_MS;
        return { kind: singles ? 'single' : 'refused', decision: decision(rpm, allowed === 1, count!, oldest!, newest!, at!) };
      },
      (error: unknown) => {
        state.pending = undefined;
        throw error;
      },
    );
    state.pending = request;
    return request;
  }

  /** A new grant serves at once, or next if the one in use still can (a refill ahead that landed early). */
  private install(bucket: string, state: BucketGrants, grant: LocalGrant): void {
    if (state.grant?.usableAt(this.local())) state.next = grant;
    else {
      if (state.grant) this.finish(bucket, state, state.grant);
      state.grant = grant;
    }
    this.scheduleReturn(bucket, state, grant);
  }

  /** Ends the bucket's grants (the one in use and the one refilled ahead), or those `which` picks. */
  private finishHeld(bucket: string, state: BucketGrants, which: (grant: LocalGrant) => boolean = () => true): void {
    for (const grant of [state.grant, state.next]) if (grant && which(grant)) this.finish(bucket, state, grant);
  }

  private promoteNext(bucket: string, state: BucketGrants): void {
    if (state.grant) this.finish(bucket, state, state.grant);
    state.grant = state.next;
    state.next = undefined;
  }

  private runAdmit(bucket: string, rpm: number, member: string, wanted: number, mode: '' | 'grant-only' = ''): Promise<number[]> {
    this.calls++;
    const now = this.options.clock ? String(this.options.clock()) : '';
    return this.admit(this.prefix + bucket, now, WINDOW_MS, capacity(rpm), member, wanted, wanted > 0 ? GRANT_LIFETIME_MS : 0, grantMargin(rpm), mode).then(
      (reply) => reply.map(Number),
    );
  }

  private scheduleReturn(bucket: string, state: BucketGrants, grant: LocalGrant): void {
    if (this.options.clock) return;
    grant.timer = setTimeout(() => this.finish(bucket, state, grant), Math.max(0, grant.sentAt + GRANT_LIFETIME_MS + 1 - this.local()));
    grant.timer.unref();
  }

  /** Ends a grant (expired, used up, replaced or closing): sizes the next one and gives back what was not used. */
  private finish(bucket: string, state: BucketGrants, grant: LocalGrant, usedUpAfterMs?: number): void {
    if (grant.returned) return;
    grant.returned = true;
    clearTimeout(grant.timer);
    if (state.grant === grant) state.grant = undefined;
    if (state.next === grant) state.next = undefined;
    state.nextSize = nextGrantSize(grant.size, grant.used.length, usedUpAfterMs, state.rpm);
    state.idleSince = this.local();
    this.calls++;
    // Best effort: a lost return only leaves unused members in the window until they age out (admission-grants.ts).
    const sent = this.giveBack(this.prefix + bucket, grant.base, grant.at, grant.size, ...grant.used).catch(() => undefined);
    this.returns.add(sent);
    void sent.finally(() => this.returns.delete(sent));
  }

  /** Forgets buckets idle for a window (their next request starts again from a grant of 1). */
  private sweep(): void {
    const before = this.local() - WINDOW_MS;
    for (const [bucket, state] of this.buckets) {
      if (!state.grant && !state.next && !state.pending && state.idleSince < before) this.buckets.delete(bucket);
    }
  }

  /** Unique across instances: a random per-process prefix and a counter (no entropy per request). */
  private nextMember(): string {
    return this.memberPrefix + (this.members++).toString(36);
  }
}
