import { createHash } from 'node:crypto';
import type { LedgerInfo, SorobanHost } from '../host/host.port';
import type { TransactionRecord } from './chain-records';
import { toEventRecord } from './contract-events';
import { successPreImageXdr, successResultXdr, trappedResultXdr } from './transaction-xdr';
import { feeCharged, type ValidTransaction } from './validate-transaction';

/**
 * Applies one admitted transaction at ledger close: the fee and sequence number are always consumed; the contract
 * call commits only if it succeeds (a trap leaves state unchanged and the tx is included as FAILED,
 * txFailed/invokeHostFunctionTrapped), as on a real network.
 */
export function applyTransaction(host: SorobanHost, tx: ValidTransaction, ledger: LedgerInfo, applicationOrder: number): TransactionRecord {
  const fee = feeCharged(tx);
  host.consumeSequenceAndFee(tx.source, tx.sequence, fee, ledger.sequence);
  const outcome = host.invoke(
    {
      contractId: tx.call.contractId,
      fn: tx.call.fn,
      args: tx.call.args,
      source: tx.source,
      ledger,
      authMode: 'enforce',
      authEntries: tx.call.auth,
      footprint: tx.footprint,
    },
    { commit: true },
  );
  const base = {
    hash: tx.hash,
    ledger: ledger.sequence,
    applicationOrder,
    envelopeXdr: tx.envelopeXdr,
    resourceFeeCharged: tx.resourceFee,
    createdAt: ledger.closeTime,
  };
  if (!outcome.ok) {
    return { ...base, status: 'FAILED', resultXdr: trappedResultXdr(fee), returnValueXdr: null, events: [] };
  }
  const successHash = createHash('sha256').update(successPreImageXdr(outcome.result, outcome.events)).digest();
  return {
    ...base,
    status: 'SUCCESS',
    resultXdr: successResultXdr(fee, successHash),
    returnValueXdr: outcome.result.toXdr('base64'),
    events: outcome.events.map((event, eventIndex) =>
      toEventRecord(event, { ledger: ledger.sequence, txIndex: applicationOrder, opIndex: 0, eventIndex, txHash: tx.hash }),
    ),
  };
}
