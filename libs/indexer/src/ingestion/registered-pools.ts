import { PoolRegistered, isEventOf } from '@dob/domain';
import { START, type EventStore, type GlobalPosition } from '@dob/event-store';

/**
 * Pools an operator registered (`registerPool` → PoolRegistered) on one network, read incrementally from `$all`
 * (type-filtered), so the ingestor watches them even when discovery is off or missed them. The position lives in
 * memory: on restart every registration is read again, which is cheap and idempotent (already watched ones are
 * skipped by the caller).
 */
export class RegisteredPools {
  private after: GlobalPosition = START;

  constructor(
    private readonly store: EventStore,
    private readonly networkId: number,
  ) {}

  /** Pool addresses registered on this network since the previous call. */
  async next(): Promise<string[]> {
    const out: string[] = [];
    for (;;) {
      const page = await this.store.readAll({ after: this.after, types: [PoolRegistered.type], maxCount: 1_000 });
      for (const e of page.events) if (isEventOf(e, [PoolRegistered.type]) && e.data.network_id === this.networkId) out.push(e.data.pool);
      this.after = page.last;
      if (!page.hasMore) return out;
    }
  }
}
