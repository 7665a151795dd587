import { CampaignEffectivelyFailed, RoundClaimAvailable, campaignStreamId, derivedEventId, isEventOf, poolStreamId } from '@dob/domain';
import { START, type EventStore, type GlobalPosition, type RecordedEvent } from '@dob/event-store';

/** Event types the scheduler folds to know what is due. */
const WATCHED_TYPES = [
  'RoundCreated',
  'RoundClaimAvailable',
  'CampaignCreated',
  'CampaignContributed',
  'CampaignOptedOut',
  'CampaignFinalized',
  'CampaignActivated',
  'CampaignActivationExpired',
  'CampaignEffectivelyFailed',
] as const;

interface PendingRound {
  network_id: number;
  pool: string;
  round_id: string;
  token: string;
  total_amount: string;
  claimable_from: string;
  expires_at: string;
  source_event_id: string;
  done: boolean;
}

interface CampaignState {
  network_id: number;
  campaign: string;
  deadline: string;
  soft_cap_shares: bigint;
  sold: bigint;
  raised: bigint;
  /** Finalized / activated / expired on chain, or the effective failure already appended. */
  settled: boolean;
}

/**
 * Appends the time-driven events: RoundClaimAvailable once a round's claimable_from has passed, and
 * CampaignEffectivelyFailed once a campaign's deadline has passed with sold < soft cap and nobody finalized it.
 * Exactly once each: the state is rebuilt from the store (including the time-driven events already appended) and
 * the ids are deterministic, so a restart or a concurrent scheduler re-appends nothing.
 */
export class TimeDrivenScheduler {
  private position: GlobalPosition = START;
  private readonly rounds = new Map<string, PendingRound>();
  private readonly campaigns = new Map<string, CampaignState>();
  private timer: NodeJS.Timeout | undefined;
  /** The tick in progress (ticks run one at a time). */
  private ticking: Promise<unknown> = Promise.resolve();
  /** Bumped by start() and stop(): a loop whose tick was in flight at stop() does not schedule another. */
  private generation = 0;

  constructor(
    private readonly store: EventStore,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Folds every relevant event appended since the last call. */
  async catchUp(): Promise<void> {
    for (;;) {
      const page = await this.store.readAll({ after: this.position, maxCount: 1000, types: WATCHED_TYPES });
      for (const e of page.events) this.apply(e);
      this.position = page.last;
      if (!page.hasMore) return;
    }
  }

  /**
   * Catches up, then appends whatever is due at the clock's now. Returns how many events were appended.
   * One tick at a time: two overlapping catch-ups both read the page after the same position and fold it twice (an
   * opt-out subtracted twice makes a campaign at its soft cap look failed, and that failure is appended for good).
   * The scheduler lease lost and taken again while a tick hangs on the database starts a second loop beside it.
   */
  tick(): Promise<number> {
    const run = this.ticking.then(() => this.tickOnce());
    this.ticking = run.catch(() => undefined);
    return run;
  }

  private async tickOnce(): Promise<number> {
    await this.catchUp();
    const now = this.clock();
    let appended = 0;
    for (const r of this.rounds.values()) {
      if (r.done || new Date(r.claimable_from) > now) continue;
      const result = await this.store.appendToStream(poolStreamId(r.network_id, r.pool), [
        {
          id: derivedEventId(r.network_id, r.pool, 'claim-available', r.round_id),
          type: RoundClaimAvailable.type,
          version: 1,
          data: RoundClaimAvailable.payload({
            network_id: r.network_id,
            pool: r.pool,
            round_id: r.round_id,
            token: r.token,
            total_amount: r.total_amount,
            claimable_from: r.claimable_from,
            expires_at: r.expires_at,
            source_event_id: r.source_event_id,
            observed_at: now.toISOString(),
          }),
          metadata: { source: 'scheduler' },
        },
      ]);
      r.done = true;
      appended += result.appended;
    }
    for (const c of this.campaigns.values()) {
      if (c.settled || new Date(c.deadline) > now || c.sold >= c.soft_cap_shares) continue;
      const result = await this.store.appendToStream(campaignStreamId(c.network_id, c.campaign), [
        {
          id: derivedEventId(c.network_id, c.campaign, 'effectively-failed'),
          type: CampaignEffectivelyFailed.type,
          version: 1,
          data: CampaignEffectivelyFailed.payload({
            network_id: c.network_id,
            campaign: c.campaign,
            deadline: c.deadline,
            total_shares_sold: c.sold.toString(),
            soft_cap_shares: c.soft_cap_shares.toString(),
            total_raised: c.raised.toString(),
            observed_at: now.toISOString(),
          }),
          metadata: { source: 'scheduler' },
        },
      ]);
      c.settled = true;
      appended += result.appended;
    }
    return appended;
  }

  /** Ticks every intervalMs until stop(); errors are reported and retried on the next tick. */
  start(intervalMs = 5_000, onError: (err: unknown) => void = () => {}): void {
    clearTimeout(this.timer);
    const generation = ++this.generation;
    const loop = async () => {
      try {
        await this.tick();
      } catch (err) {
        onError(err);
      }
      // stop() (the lease lost) during the tick cleared no timer: without this check the loop would go on.
      if (generation === this.generation) this.timer = setTimeout(loop, intervalMs);
    };
    this.timer = setTimeout(loop, 0);
  }

  stop(): void {
    this.generation += 1;
    clearTimeout(this.timer);
  }

  private apply(e: RecordedEvent): void {
    if (!isEventOf(e, WATCHED_TYPES)) return;
    switch (e.type) {
      case 'RoundCreated': {
        const d = e.data;
        const key = `${d.chain.network_id}/${d.chain.contract_id}/${d.round_id}`;
        const prev = this.rounds.get(key);
        this.rounds.set(key, {
          network_id: d.chain.network_id,
          pool: d.chain.contract_id,
          round_id: d.round_id,
          token: d.token,
          total_amount: d.total_amount,
          claimable_from: d.claimable_from,
          expires_at: d.expires_at,
          source_event_id: d.chain.event_id,
          done: prev?.done ?? false,
        });
        return;
      }
      case 'RoundClaimAvailable': {
        const x = e.data;
        const r = this.rounds.get(`${x.network_id}/${x.pool}/${x.round_id}`);
        if (r) r.done = true;
        return;
      }
      case 'CampaignEffectivelyFailed': {
        const x = e.data;
        const c = this.campaigns.get(`${x.network_id}/${x.campaign}`);
        if (c) c.settled = true;
        return;
      }
      case 'CampaignCreated': {
        const d = e.data;
        this.campaigns.set(`${d.chain.network_id}/${d.chain.contract_id}`, {
          network_id: d.chain.network_id,
          campaign: d.chain.contract_id,
          deadline: d.deadline,
          soft_cap_shares: BigInt(d.soft_cap_shares),
          sold: 0n,
          raised: 0n,
          settled: false,
        });
        return;
      }
    }
    const c = this.campaigns.get(`${e.data.chain.network_id}/${e.data.chain.contract_id}`);
    if (!c) return;
    if (e.type === 'CampaignContributed') {
      c.sold = BigInt(e.data.total_shares_sold);
      c.raised += BigInt(e.data.payment);
    } else if (e.type === 'CampaignOptedOut') {
      c.sold -= BigInt(e.data.shares);
      c.raised -= BigInt(e.data.refund_amount);
    } else {
      // CampaignFinalized / CampaignActivated / CampaignActivationExpired: the chain has spoken.
      c.settled = true;
    }
  }
}
