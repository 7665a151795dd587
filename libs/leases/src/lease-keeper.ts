import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { HeldLease, LeaseFence, LeaseOwner, LeaseStore } from './lease.port';

export interface LeaseTiming {
  /** How long a lease lasts without renewal: the longest a crashed holder's work stays unowned. */
  readonly durationMs: number;
  /** How often leases are renewed and lapsed ones tried; well below durationMs (a few renewals may fail). */
  readonly heartbeatMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { durationMs: 5_000, heartbeatMs: 1_000 };

export interface ClaimHandlers {
  /** This process now holds the lease: start the work, fencing its commits with `lease`. */
  readonly onAcquired: (lease: HeldLease) => void | Promise<void>;
  /** The lease is gone (taken over, lapsed unrenewed, or released at stop): stop the work. */
  readonly onLost: (lease: HeldLease, why: string) => void | Promise<void>;
  /** Reported with each renewal, shown by `cluster status` (e.g. lag). */
  readonly progress?: () => Record<string, unknown> | null;
}

/** One piece of work this process competes for. */
export interface LeaseClaim {
  readonly name: string;
  /** The lease while held, else null. */
  held(): HeldLease | null;
  /** Since when this process holds it. */
  heldSince(): Date | null;
  fence(): LeaseFence | null;
}

interface Claim extends LeaseClaim {
  readonly handlers: ClaimHandlers;
  lease: HeldLease | null;
  since: Date | null;
  /** Local deadline: past it, this process no longer counts on the lease even if the database was unreachable. */
  validUntil: number;
}

export function leaseOwner(app: string): LeaseOwner {
  const host = hostname();
  return { id: `${app}@${host}:${process.pid}:${randomBytes(3).toString('hex')}`, app, host, pid: process.pid };
}

/**
 * Holds this process's leases: every heartbeat it renews the ones it holds and tries the ones it does not (a
 * standby takes over within one heartbeat of a lapse). A lease counts as held locally only until the time its last
 * renewal was *sent* plus the duration, so a process that was paused or cut off stops its work by then even when
 * it cannot reach the database; the fencing check in the store covers the window in between.
 */
export class LeaseKeeper {
  private readonly claims = new Map<string, Claim>();
  private timer?: NodeJS.Timeout;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly store: LeaseStore,
    readonly owner: LeaseOwner,
    readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
    private readonly log: (line: string) => void = () => undefined,
    /** Told of each change of hands of this process's leases (e.g. `lease_changes_total`, for churn alerts). */
    private readonly onChange: (change: 'acquired' | 'lost', name: string) => void = () => undefined,
  ) {
    if (timing.heartbeatMs >= timing.durationMs)
      throw new Error(`lease heartbeat (${timing.heartbeatMs} ms) must be shorter than the lease (${timing.durationMs} ms)`);
  }

  claim(name: string, handlers: ClaimHandlers): LeaseClaim {
    if (this.claims.has(name)) throw new Error(`lease ${name} claimed twice`);
    const claim: Claim = {
      name,
      handlers,
      lease: null,
      since: null,
      validUntil: 0,
      held: () => claim.lease,
      heldSince: () => claim.since,
      fence: () => (claim.lease ? { name, token: claim.lease.token, durationMs: this.timing.durationMs } : null),
    };
    this.claims.set(name, claim);
    if (this.timer) this.schedule(); // started already: try it now rather than at the next beat
    return claim;
  }

  /** Creates the store's bookkeeping, runs one round (so an uncontested lease is held on return) and beats on. */
  async start(): Promise<void> {
    await this.store.init();
    this.stopped = false;
    await this.schedule();
    this.timer = setInterval(() => void this.schedule(), this.timing.heartbeatMs);
  }

  /** Stops beating and releases every held lease (a standby takes over at once), after `onLost` stopped the work. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
    for (const claim of this.claims.values()) {
      const lease = claim.lease;
      if (!lease) continue;
      await this.lose(claim, 'stopping');
      await this.store.release(lease).catch((e) => this.log(`could not release ${claim.name}: ${String(e)}`));
    }
  }

  held(): LeaseClaim[] {
    return [...this.claims.values()].filter((c) => c.lease !== null);
  }

  /** Rounds never overlap: a slow database delays the next one instead of piling them up. */
  private schedule(): Promise<void> {
    this.round = this.round.then(() => this.beat()).catch((e) => this.log(`lease round failed: ${String(e)}`));
    return this.round;
  }

  private async beat(): Promise<void> {
    for (const claim of this.claims.values()) {
      if (this.stopped) return;
      const sentAt = Date.now();
      try {
        if (claim.lease) {
          if (sentAt > claim.validUntil) {
            await this.lose(claim, 'not renewed in time (paused or cut off from the database)');
            continue;
          }
          const renewed = await this.store.renew(claim.lease, this.timing.durationMs, claim.handlers.progress?.() ?? null);
          if (renewed) claim.validUntil = sentAt + this.timing.durationMs;
          else await this.lose(claim, 'taken over by another process');
        } else {
          const lease = await this.store.tryAcquire(claim.name, this.owner, this.timing.durationMs);
          if (!lease) continue;
          claim.lease = lease;
          claim.since = new Date();
          claim.validUntil = sentAt + this.timing.durationMs;
          this.log(`acquired ${claim.name} (token ${lease.token})`);
          this.onChange('acquired', claim.name);
          await claim.handlers.onAcquired(lease);
        }
      } catch (e) {
        this.log(`lease ${claim.name}: ${String(e)}`);
        if (claim.lease && Date.now() > claim.validUntil) await this.lose(claim, `not renewed in time: ${String(e)}`);
      }
    }
  }

  private async lose(claim: Claim, why: string): Promise<void> {
    const lease = claim.lease;
    if (!lease) return;
    claim.lease = null;
    claim.since = null;
    this.log(`lost ${claim.name} (token ${lease.token}): ${why}`);
    this.onChange('lost', claim.name);
    await claim.handlers.onLost(lease, why);
  }
}
