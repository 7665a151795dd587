import {
  campaignStreamId,
  chainDomainEventId,
  chainEventCatalog,
  contractStreamId,
  poolStreamId,
  tokenStreamId,
  validatePayload,
  type EventDefinition,
} from '@dob/domain';
import type { NewEvent } from '@dob/event-store';
import { chainRefOf, type DomainEventDraft, type RawChainEvent } from './chain-event';
import type { ContractIdentity } from './contract-identity';
import { CROWDFUNDING_DECODERS } from './crowdfunding.decoder';
import type { DecodeContext, SymbolDecoder } from './decoder-context';
import { PARTICIPATION_TOKEN_DECODERS } from './participation-token.decoder';
import { decodeTokenTransfer } from './sac.decoder';
import { DecodeError } from './scval';
import { SPLITTER_DECODERS } from './splitter.decoder';

export interface DecodedDomainEvent {
  readonly streamId: string;
  readonly event: NewEvent<Record<string, unknown>>;
}

/**
 * The decoded event with fields added to a copy of its payload: a decoded payload is frozen once validated, and the
 * copy is validated again in full when it is appended.
 */
export function withData(d: DecodedDomainEvent, fields: Record<string, unknown>): DecodedDomainEvent {
  return { streamId: d.streamId, event: { ...d.event, data: { ...d.event.data, ...fields } } };
}

export interface DecodeResult {
  readonly events: DecodedDomainEvent[];
  /** Set when the chain event became ChainEventUndecoded. */
  readonly undecodedReason: string | null;
}

/** Alarm hook: called for every chain event that could not be decoded (it is still stored, never dropped). */
export type UndecodedListener = (info: { networkId: number; event: RawChainEvent; identity: ContractIdentity; reason: string }) => void;

const SCHEMAS: ReadonlyMap<string, EventDefinition> = new Map(chainEventCatalog().map((d) => [d.type, d]));

function symbolTable(identity: ContractIdentity): Readonly<Record<string, SymbolDecoder>> | null {
  switch (identity.kind) {
    case 'splitter':
      return SPLITTER_DECODERS[identity.version] ?? null;
    case 'crowdfunding':
      return CROWDFUNDING_DECODERS[identity.version] ?? null;
    case 'participation_token':
      return PARTICIPATION_TOKEN_DECODERS;
    case 'sac':
      // Only transfers matter for pools; other SAC events (mint, burn, approve…) are not pool history.
      return { transfer: decodeTokenTransfer };
    default:
      return null;
  }
}

/** Stream for the raw record of an event we could not decode: the contract's own aggregate stream. */
function undecodedStream(networkId: number, identity: ContractIdentity): string {
  switch (identity.kind) {
    case 'splitter':
      return poolStreamId(networkId, identity.contractId);
    case 'crowdfunding':
      return campaignStreamId(networkId, identity.contractId);
    case 'participation_token':
      return identity.pool ? poolStreamId(networkId, identity.pool) : tokenStreamId(networkId, identity.contractId);
    case 'sac':
      return tokenStreamId(networkId, identity.contractId);
    default:
      return contractStreamId(networkId, identity.contractId);
  }
}

function drafts(e: RawChainEvent, ctx: DecodeContext): DomainEventDraft[] {
  const first = e.topic[0];
  if (!first || first.type !== 'scvSymbol') throw new DecodeError('first topic is not a symbol');
  const symbol = first.sym.toString();
  const table = symbolTable(ctx.identity);
  if (!table) throw new DecodeError(`no decoder for ${ctx.identity.kind} version ${ctx.identity.version}`);
  const decoder = table[symbol];
  if (!decoder) {
    // Non-transfer SAC events are irrelevant rather than undecodable.
    if (ctx.identity.kind === 'sac') return [];
    throw new DecodeError(`no "${symbol}" event in ${ctx.identity.kind} ${ctx.identity.version}`);
  }
  return decoder(e, ctx);
}

/**
 * Pure: one RPC event + the emitting contract's identity → domain events with deterministic ids
 * (uuid v5 of network, RPC event id and the index of the domain event). Never throws and never drops: whatever
 * does not decode, or decodes to a payload the catalog rejects, becomes ChainEventUndecoded. A payload that passes
 * is frozen (validatePayload): what enriches one later (cap tables, listing fills) replaces it with a copy.
 */
export function decodeChainEvent(e: RawChainEvent, ctx: DecodeContext, onUndecoded?: UndecodedListener): DecodeResult {
  const chain = chainRefOf(ctx.networkId, e);
  const build = (d: DomainEventDraft, index: number): DecodedDomainEvent => ({
    streamId: d.streamId,
    event: {
      id: chainDomainEventId(ctx.networkId, e.id, index),
      type: d.type,
      version: 1,
      data: { chain, ...d.data },
      metadata: { source: 'chain', chain_event_id: e.id, ledger: e.ledger },
    },
  });
  let reason: string;
  try {
    const out = drafts(e, ctx).map(build);
    const invalid = out.map((o) => validate(o.event.type, o.event.data)).find((r) => r !== null);
    if (!invalid) return { events: out, undecodedReason: null };
    reason = `decoded payload rejected by the catalog: ${invalid}`;
  } catch (err) {
    reason = err instanceof Error ? err.message : String(err);
  }
  onUndecoded?.({ networkId: ctx.networkId, event: e, identity: ctx.identity, reason });
  const undecoded = build(
    {
      streamId: undecodedStream(ctx.networkId, ctx.identity),
      type: 'ChainEventUndecoded',
      data: {
        topic_xdr: e.topic.map((t) => t.toXdr('base64')),
        value_xdr: e.value.toXdr('base64'),
        contract_kind: ctx.identity.kind,
        contract_version: ctx.identity.version,
        reason,
      },
    },
    0,
  );
  return { events: [undecoded], undecodedReason: reason };
}

/** Checked against the catalog, and frozen when valid: the event store then appends it without checking it again. */
function validate(type: string, data: unknown): string | null {
  const def = SCHEMAS.get(type);
  if (!def) return `unknown event type ${type}`;
  return validatePayload(def.schema, data);
}
