import { PoolRegistered, isEventOf } from '@dob/domain';
import { START, type EventStore, type GlobalPosition } from '@dob/event-store';

/**
 * Pools an operator registered (`registerPool` → PoolRegistered) on one network, read incrementally from `$all`
 * (type-filtered), so the ingestor watches them even when discovery is off or missed them. The position is kept in
 * the indexer's snapshots; without one, a restart reads every registration again (idempotent: already watched ones
 * are skipped by the caller).
 */
export class RegisteredPools {
  /**
   * `after`: where a snapshot's reading stopped (START: everything is read again); `again`: registrations read
   * before it that were not watched, returned by the first call so they are asked about again as after a full read.
   */
  constructor(
    private readonly store: EventStore,
    private readonly networkId: number,
    private after: GlobalPosition = START,
    private again: readonly string[] = [],
  ) {}

  /** Where reading stopped: every registration before it has been returned. */
  position(): GlobalPosition {
    return this.after;
  }

  /** Pool addresses registered on this network since the previous call. */
  async next(): Promise<string[]> {
    const out: string[] = [...this.again];
    this.again = [];
    for (;;) {
      const page = await this.store.readAll({ after: this.after, types: [PoolRegistered.type], maxCount: 1_000 });
      for (const e of page.events) if (isEventOf(e, [PoolRegistered.type]) && e.data.network_id === this.networkId) out.push(e.data.pool);
      this.after = page.last;
      if (!page.hasMore) return out;
    }
  }
}
