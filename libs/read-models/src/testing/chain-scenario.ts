import { createHash } from 'node:crypto';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { campaignStreamId, chainDomainEventId, derivedEventId, poolStreamId, type ChainRef } from '@dob/domain';
import type { NewEvent, StreamAppend } from '@dob/event-store';

const hash = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Valid StrKeys derived from a name, so fixtures are stable and pass checksum validation. */
export const contractAddr = (name: string): string => StrKey.encodeContract(hash(`contract:${name}`));
/** Test wallets with a known secret, so e2e tests can sign auth challenges as them. */
export const accountKeypair = (name: string): Keypair => Keypair.fromRawEd25519Seed(hash(`account:${name}`));
export const accountAddr = (name: string): string => accountKeypair(name).publicKey();

/**
 * Builds domain events exactly as the indexer would append them (catalog payloads with a chain ref, deterministic
 * ids, pool/campaign streams), with a controllable ledger clock. Test and benchmark support only.
 */
export class ChainScenario {
  private ledger = 1000;
  private time: number;
  private readonly appends: { streamId: string; event: NewEvent }[] = [];
  /** Appends made so far, drained or not: keeps registry event ids distinct across drainBatches(). */
  private made = 0;

  constructor(
    readonly networkId = 9,
    start = new Date('2026-01-01T00:00:00Z'),
  ) {
    this.time = start.getTime();
  }

  get now(): Date {
    return new Date(this.time);
  }

  advance(seconds: number): this {
    this.time += seconds * 1000;
    this.ledger += Math.max(1, Math.floor(seconds / 5));
    return this;
  }

  /** A chain-derived event of contract `contractId`, in its own ledger/transaction. */
  chain(type: string, contractId: string, fields: Record<string, unknown>, streamId = poolStreamId(this.networkId, contractId)): this {
    this.ledger += 1;
    const eventId = `${String(this.ledger * 4096).padStart(19, '0')}-0000000001`;
    const chain: ChainRef = {
      network_id: this.networkId,
      contract_id: contractId,
      tx_hash: hash(`tx:${this.networkId}:${eventId}`).toString('hex'),
      ledger: this.ledger,
      event_id: eventId,
      closed_at: new Date(this.time).toISOString(),
    };
    this.push(streamId, { id: chainDomainEventId(this.networkId, eventId, 0), type, version: 1, data: { chain, ...fields } });
    this.time += 5000;
    return this;
  }

  /** A registry (operator) event on the pool's stream. */
  registry(type: 'PoolRegistered' | 'PoolMetadataUpdated', pool: string, fields: Record<string, unknown>): this {
    const at = new Date(this.time).toISOString();
    const data =
      type === 'PoolRegistered'
        ? { network_id: this.networkId, pool, ...fields, registered_at: at }
        : { network_id: this.networkId, pool, changes: fields, updated_at: at };
    this.push(poolStreamId(this.networkId, pool), { id: derivedEventId('registry', this.networkId, pool, this.made), type, version: 1, data });
    return this;
  }

  campaign(type: string, campaign: string, fields: Record<string, unknown>): this {
    return this.chain(type, campaign, fields, campaignStreamId(this.networkId, campaign));
  }

  private push(streamId: string, event: NewEvent): void {
    this.appends.push({ streamId, event });
    this.made++;
  }

  /**
   * Takes the events built so far as appendMany calls, keeping $all order: consecutive runs of one stream, a new
   * call when a stream would appear twice in one (appendMany refuses that) or the call holds `maxEvents`.
   */
  drainBatches(maxEvents = 2000): StreamAppend[][] {
    const calls: StreamAppend[][] = [];
    let call: StreamAppend[] = [];
    let streams = new Set<string>();
    let n = 0;
    for (const run of this.streamAppends()) {
      if (call.length && (streams.has(run.streamId) || n + run.events.length > maxEvents)) {
        calls.push(call);
        call = [];
        streams = new Set();
        n = 0;
      }
      call.push(run);
      streams.add(run.streamId);
      n += run.events.length;
    }
    if (call.length) calls.push(call);
    this.appends.length = 0;
    return calls;
  }

  /** Appends grouped per stream in order (one append per consecutive run of one stream keeps $all order). */
  streamAppends(): StreamAppend[] {
    const out: { streamId: string; events: NewEvent[] }[] = [];
    for (const a of this.appends) {
      const last = out[out.length - 1];
      if (last && last.streamId === a.streamId) last.events.push(a.event);
      else out.push({ streamId: a.streamId, events: [a.event] });
    }
    return out;
  }

  get size(): number {
    return this.appends.length;
  }
}
