import { campaignStreamId, poolStreamId } from '@dob/domain';
import { xdr } from '@stellar/stellar-sdk';
import type { DomainEventDraft, RawChainEvent } from './chain-event';
import type { DecodeContext } from './decoder-context';
import { DecodeError, expectTopicCount, readAddress, readI128, readString } from './scval';

/**
 * SAC / SEP-41 `transfer` per CAP-67: topics [transfer, from, to, Str "CODE:ISSUER"] (the asset topic is absent on
 * plain SEP-41 tokens), data i128 or map {amount, to_muxed_id}. Recorded once per watched pool/campaign party;
 * transfers between outsiders produce nothing (they are not pool history).
 */
export function decodeTokenTransfer(e: RawChainEvent, ctx: DecodeContext): DomainEventDraft[] {
  expectTopicCount(e.topic, [3, 4]);
  const from = readAddress(e.topic[1], 'from');
  const to = readAddress(e.topic[2], 'to');
  const asset = e.topic.length === 4 ? readString(e.topic[3], 'asset') : null;
  const amount = readAmount(e.value).toString();
  const out: DomainEventDraft[] = [];
  for (const party of new Set([from, to])) {
    const id = ctx.identityOf(party);
    if (!id || (id.kind !== 'splitter' && id.kind !== 'crowdfunding')) continue;
    const streamId = id.kind === 'splitter' ? poolStreamId(ctx.networkId, party) : campaignStreamId(ctx.networkId, party);
    out.push({ streamId, type: 'PaymentTokenTransferred', data: { token: e.contractId, party, from, to, amount, asset } });
  }
  return out;
}

function readAmount(v: xdr.ScVal): bigint {
  if (v.type !== 'scvMap') return readI128(v, 'amount');
  // CAP-67 muxed transfer: map {amount: i128, to_muxed_id: …}.
  const entry = (v.map ?? []).find((m) => m.key.type === 'scvSymbol' && m.key.sym.toString() === 'amount');
  if (!entry) throw new DecodeError('transfer data map without amount');
  return readI128(entry.val, 'amount');
}
