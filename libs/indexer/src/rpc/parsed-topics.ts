import { xdr } from '@stellar/stellar-sdk';

/** An ScVal from the base64 XDR text getEvents sends, with Buffer's base64 decoder. */
export const parseScVal = (base64: string): xdr.ScVal => xdr.ScVal.fromXdr(Buffer.from(base64, 'base64'));

/**
 * Topics repeat from event to event (the event's symbol, the pools and wallets it names) where values rarely do: a
 * topic is parsed once per distinct base64 text and its ScVal shared by every event that carries it — decoders only
 * read ScVals. Bounded: past `max` distinct texts it starts over. In a 100,000-event backfill the XDR parsing fell
 * from 11 % to 7 % of the indexer's CPU profile (docs/benchmarks-journal.md, "Indexer backfill").
 */
export class ParsedTopics {
  private readonly parsed = new Map<string, xdr.ScVal>();

  constructor(private readonly max = 50_000) {}

  get size(): number {
    return this.parsed.size;
  }

  parse(base64: string): xdr.ScVal {
    let topic = this.parsed.get(base64);
    if (topic === undefined) {
      if (this.parsed.size >= this.max) this.parsed.clear();
      this.parsed.set(base64, (topic = parseScVal(base64)));
    }
    return topic;
  }
}
