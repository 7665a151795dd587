import { PoolInitialized, ShareTableUpdated, isEventOf } from '@dob/domain';
import type { xdr } from '@stellar/stellar-sdk';
import { withData, type DecodedDomainEvent } from '../decoding/decode-chain-event';
import { readAddress, readI128 } from '../decoding/scval';
import type { ChainRpc, ContractInvocation } from '../rpc/chain-rpc.port';

export interface CapTableEntry {
  readonly shareholder: string;
  readonly share: string;
}

/**
 * Splitter V1's `init` event carries only the cap table's length and `shares` only the new count (docs/contracts.md
 * §2.4), so a fold of the store could never know who holds a V1 pool's initial shares. The table is in the
 * transaction's invocation args (`init(admin, Vec<ShareDataKey>, mutable)`, `update_shares(Vec<ShareDataKey>)`),
 * so the indexer reads it with getTransaction and attaches it: `initial_shares` on PoolInitialized (V1), `shares`
 * on ShareTableUpdated. Null when the transaction is gone or the call was not a direct one on that pool (e.g. init
 * through a deployer contract): the gap is then visible rather than guessed. The decoded payload is frozen (the
 * decoder validated it): the event is replaced by one with a copy that carries the table.
 */
export async function attachCapTables(decoded: DecodedDomainEvent[], invocationOf: ChainRpc['getInvocation']): Promise<void> {
  const wanted: { index: number; fn: 'init' | 'update_shares'; txHash: string; pool: string }[] = [];
  for (const [index, d] of decoded.entries()) {
    const e = d.event;
    if (isEventOf(e, [PoolInitialized.type]) && e.data.pool_version === '1') {
      wanted.push({ index, fn: 'init', txHash: e.data.chain.tx_hash, pool: e.data.chain.contract_id });
    } else if (isEventOf(e, [ShareTableUpdated.type])) {
      wanted.push({ index, fn: 'update_shares', txHash: e.data.chain.tx_hash, pool: e.data.chain.contract_id });
    }
  }
  const calls = await invocationsOf(
    wanted.map((w) => w.txHash),
    invocationOf,
  );
  for (const { index, fn, txHash, pool } of wanted) {
    const table = capTableFromCall(calls.get(txHash) ?? null, pool, fn);
    decoded[index] = withData(decoded[index]!, fn === 'init' ? { initial_shares: table } : { shares: table });
  }
}

/** At most this many getTransaction calls in flight: a window of many V1 pools' inits is not a round trip each in turn. */
const INVOCATION_CONCURRENCY = 8;

/** Each distinct transaction's invocation, read INVOCATION_CONCURRENCY at a time. */
async function invocationsOf(txHashes: readonly string[], invocationOf: ChainRpc['getInvocation']): Promise<Map<string, ContractInvocation | null>> {
  const pending = [...new Set(txHashes)];
  const out = new Map<string, ContractInvocation | null>();
  const worker = async () => {
    for (let hash = pending.shift(); hash !== undefined; hash = pending.shift()) out.set(hash, await invocationOf(hash));
  };
  await Promise.all(Array.from({ length: Math.min(INVOCATION_CONCURRENCY, pending.length) }, worker));
  return out;
}

/** The `Vec<ShareDataKey {share, shareholder}>` argument of a direct init / update_shares call on `pool`. */
export function capTableFromCall(call: ContractInvocation | null, pool: string, fn: 'init' | 'update_shares'): CapTableEntry[] | null {
  if (!call || call.contractId !== pool || call.functionName !== fn) return null;
  const arg = call.args[fn === 'init' ? 1 : 0];
  if (!arg || arg.type !== 'scvVec') return null;
  try {
    return (arg.vec ?? []).map(shareEntry);
  } catch {
    return null;
  }
}

function shareEntry(v: xdr.ScVal): CapTableEntry {
  if (v.type !== 'scvMap') throw new Error('ShareDataKey: expected a map');
  const fields = new Map<string, xdr.ScVal>((v.map ?? []).map((e) => [e.key.type === 'scvSymbol' ? e.key.sym.toString() : '', e.val]));
  return { shareholder: readAddress(fields.get('shareholder'), 'shareholder'), share: readI128(fields.get('share'), 'share').toString() };
}
