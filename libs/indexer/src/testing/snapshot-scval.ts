import { Address, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { readFileSync } from 'node:fs';
import type { RawChainEvent } from '../decoding/chain-event';

/**
 * Converts soroban-sdk test-snapshot JSON values ({"symbol": …}, {"i128": "…"}, {"vec": […]}, …) to ScVal, so tests
 * feed the decoders the exact topics/data the real contracts emitted (docs/contracts.md §9 fixtures).
 */
export function snapshotToScVal(j: Record<string, unknown>): xdr.ScVal {
  const [[k, v]] = Object.entries(j);
  switch (k) {
    case 'symbol':
      return xdr.ScVal.scvSymbol(v as string);
    case 'string':
      return xdr.ScVal.scvString(v as string);
    case 'address':
      return Address.fromString(v as string).toScVal();
    case 'i128':
      return nativeToScVal(BigInt(v as string), { type: 'i128' });
    case 'u64':
      return nativeToScVal(BigInt(v as string), { type: 'u64' });
    case 'u32':
      return xdr.ScVal.scvU32(v as number);
    case 'bool':
      return xdr.ScVal.scvBool(v as boolean);
    case 'vec':
      return xdr.ScVal.scvVec((v as Record<string, unknown>[]).map(snapshotToScVal));
    default:
      throw new Error(`snapshot value kind ${k} not supported`);
  }
}

interface SnapshotEvent {
  event: { contract_id: string; body: { v0: { topics: Record<string, unknown>[]; data: Record<string, unknown> } } };
  failed_call: boolean;
}

/** The `events` of a fixture as RPC-like events (synthetic ids/ledger/tx: snapshots carry none). */
export function fixtureEvents(path: string, ledger = 100): RawChainEvent[] {
  const json = JSON.parse(readFileSync(path, 'utf8')) as { events: SnapshotEvent[] };
  return json.events.map((s, i) => ({
    id: `${String(ledger * 4096).padStart(19, '0')}-${String(i + 1).padStart(10, '0')}`,
    ledger,
    ledgerClosedAt: '2026-08-06T12:00:00Z',
    txHash: 'ab'.repeat(32),
    contractId: s.event.contract_id,
    topic: s.event.body.v0.topics.map(snapshotToScVal),
    value: snapshotToScVal(s.event.body.v0.data),
    inSuccessfulContractCall: !s.failed_call,
  }));
}
