import { isEventOf, type ChainEventOf } from '@dob/domain';
import type { EventStore, GlobalPosition } from '@dob/event-store';
import { withData, type DecodedDomainEvent } from '../decoding/decode-chain-event';

const key = (pool: string, seller: string) => `${pool}|${seller}`;
const TYPES = ['ListingCreated', 'ListingSold', 'ListingCancelled'] as const;
type ListingEvent = ChainEventOf<(typeof TYPES)[number]>;

/** One open listing: shares still for sale (decimal string), as a snapshot keeps it. */
export type OpenListing = { pool: string; seller: string; shares: string };

/**
 * Shares still for sale per (pool, seller), so ListingSold can carry `shares_remaining` (the `sold` event does not):
 * a listing is per seller, re-listing overwrites it, a sale reduces it and removes it at 0, a cancel removes it
 * (docs/contracts.md §2.2 / §3). Rebuilt from the store at start; a sale whose listing the store does not hold (the
 * indexer started after it was created) keeps `shares_remaining: null`. Changes are staged per window and kept only
 * once the window is committed, so a failed append never leaves the book ahead of the store.
 */
export class ListingBook {
  private open = new Map<string, bigint>();

  /**
   * The book from the store: every listing event of the network, or with a snapshot's book and position only the
   * events after it (a restart then reads what the last few windows added, not the whole history).
   */
  static async load(store: EventStore, networkId: number, from?: { open: readonly OpenListing[]; after: GlobalPosition }): Promise<ListingBook> {
    const book = new ListingBook();
    for (const l of from?.open ?? []) book.open.set(key(l.pool, l.seller), BigInt(l.shares));
    let after = from?.after;
    for (;;) {
      const page = await store.readAll({ after, types: TYPES, maxCount: 5_000 });
      for (const e of page.events) if (isEventOf(e, TYPES) && e.data.chain.network_id === networkId) book.applyTo(book.open, e);
      after = page.last;
      if (!page.hasMore) return book;
    }
  }

  /**
   * Fills shares_remaining on the window's ListingSold events (in chain order, each replaced in `decoded` by a copy
   * that carries it). `keep` makes the staged book the
   * book (call it after the commit); `open` lists the staged book, for a snapshot committed with the window.
   */
  stage(decoded: DecodedDomainEvent[]): { keep: () => void; open: () => OpenListing[] } {
    const staged = new Map(this.open);
    for (const [i, d] of decoded.entries()) {
      if (!isEventOf(d.event, TYPES)) continue;
      const remaining = this.applyTo(staged, d.event);
      // The decoded payload is frozen (validated): the sale is replaced by one whose copy carries what is left.
      if (remaining !== undefined) decoded[i] = withData(d, { shares_remaining: remaining });
    }
    return {
      keep: () => {
        this.open = staged;
      },
      open: () =>
        [...staged].map(([k, shares]) => {
          const [pool, seller] = k.split('|') as [string, string];
          return { pool, seller, shares: shares.toString() };
        }),
    };
  }

  /** The event applied to the book; for a sale of a listing the book holds, the shares it leaves (decimal string). */
  private applyTo(book: Map<string, bigint>, e: ListingEvent): string | undefined {
    const k = key(e.data.pool, e.data.seller);
    if (e.type === 'ListingCreated') book.set(k, BigInt(e.data.shares_amount));
    else if (e.type === 'ListingCancelled') book.delete(k);
    else {
      const listed = book.get(k);
      if (listed === undefined) return undefined;
      const left = listed - BigInt(e.data.shares_sold);
      if (left <= 0n) book.delete(k);
      else book.set(k, left);
      return (left > 0n ? left : 0n).toString();
    }
    return undefined;
  }
}
