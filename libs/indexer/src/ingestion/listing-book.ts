import { ListingCancelled, ListingCreated, ListingSold } from '@dob/domain';
import type { EventStore } from '@dob/event-store';
import type { DecodedDomainEvent } from '../decoding/decode-chain-event';

const key = (pool: string, seller: string) => `${pool}|${seller}`;
const TYPES = [ListingCreated.type, ListingSold.type, ListingCancelled.type];

type ListingData = { chain: { network_id: number }; pool: string; seller: string; shares_amount?: string; shares_sold?: string; shares_remaining?: string | null };

/**
 * Shares still for sale per (pool, seller), so ListingSold can carry `shares_remaining` (the `sold` event does not):
 * a listing is per seller, re-listing overwrites it, a sale reduces it and removes it at 0, a cancel removes it
 * (dob-contracts §2.2 / §3). Rebuilt from the store at start; a sale whose listing the store does not hold (the
 * indexer started after it was created) keeps `shares_remaining: null`. Changes are staged per window and kept only
 * once the window is committed, so a failed append never leaves the book ahead of the store.
 */
export class ListingBook {
  private open = new Map<string, bigint>();

  static async load(store: EventStore, networkId: number): Promise<ListingBook> {
    const book = new ListingBook();
    let after;
    for (;;) {
      const page = await store.readAll({ after, types: TYPES, maxCount: 5_000 });
      for (const e of page.events) {
        const d = e.data as ListingData;
        if (d.chain?.network_id === networkId) book.applyTo(book.open, e.type, d);
      }
      after = page.last;
      if (!page.hasMore) return book;
    }
  }

  /** Fills shares_remaining on the window's ListingSold events (in chain order); call the result after the commit. */
  stage(decoded: readonly DecodedDomainEvent[]): () => void {
    const staged = new Map(this.open);
    for (const d of decoded) if (TYPES.includes(d.event.type)) this.applyTo(staged, d.event.type, d.event.data as ListingData, true);
    return () => {
      this.open = staged;
    };
  }

  private applyTo(book: Map<string, bigint>, type: string, d: ListingData, fill = false): void {
    const k = key(d.pool, d.seller);
    if (type === ListingCreated.type) book.set(k, BigInt(d.shares_amount!));
    else if (type === ListingCancelled.type) book.delete(k);
    else {
      const listed = book.get(k);
      if (listed === undefined) return;
      const left = listed - BigInt(d.shares_sold!);
      if (fill) d.shares_remaining = (left > 0n ? left : 0n).toString();
      if (left <= 0n) book.delete(k);
      else book.set(k, left);
    }
  }
}
