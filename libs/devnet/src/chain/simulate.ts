import { Transaction, xdr } from '@stellar/stellar-sdk';
import type { LedgerInfo, SorobanHost } from '../host/host.port';
import { parseInvocation } from './parse-invocation';
import { resourceFeeFor, sorobanTransactionData } from './resource-fee';

type Wire<T extends { fromXdrObject(w: never): unknown }> = Parameters<T['fromXdrObject']>[0];

export type Simulation =
  | {
      readonly ok: true;
      readonly transactionData: string;
      readonly minResourceFee: string;
      readonly results: readonly { readonly auth: readonly string[]; readonly xdr: string }[];
      readonly events: readonly string[];
    }
  | { readonly ok: false; readonly error: string; readonly events: readonly string[] };

export class InvalidSimulationRequest extends Error {}

/**
 * simulateTransaction: runs the call in recording-auth mode without committing and answers what stellar-rpc does
 * (SorobanTransactionData with the footprint, minResourceFee, results[{auth, xdr}], diagnostic events), enough for
 * stellar-sdk's prepareTransaction/assembleTransaction. Signatures and sequence are not checked, like real RPC.
 */
export function simulateTransaction(host: SorobanHost, envelopeXdr: string, ledger: LedgerInfo): Simulation {
  let envelope: xdr.TransactionEnvelope;
  try {
    envelope = xdr.TransactionEnvelope.fromXdr(envelopeXdr, 'base64');
  } catch {
    throw new InvalidSimulationRequest('could not unmarshal transaction');
  }
  const parsed = parseInvocation(envelope);
  if (!parsed.ok) {
    throw new InvalidSimulationRequest(
      parsed.reason === 'too-many-operations'
        ? 'transaction contains more than one operation'
        : parsed.reason === 'unsupported-host-function'
          ? 'the devnet only supports invokeContract host functions'
          : 'transaction must contain exactly one invokeHostFunction operation',
    );
  }
  if (envelope.type !== 'envelopeTypeTx') throw new InvalidSimulationRequest('fee bump transactions are not supported');
  const source = sourceAccountOf(envelope);
  const outcome = host.invoke(
    { contractId: parsed.call.contractId, fn: parsed.call.fn, args: parsed.call.args, source, ledger, authMode: 'record' },
    { commit: false },
  );
  if (!outcome.ok) {
    const message = outcome.message.startsWith('HostError') ? outcome.message : `HostError: ${outcome.message}`;
    return { ok: false, error: message, events: [] };
  }
  const events = outcome.events.map((event) =>
    xdr.DiagnosticEvent.fromXdrObject({ inSuccessfulContractCall: true, event: event.toXdrObject() } as Wire<typeof xdr.DiagnosticEvent>).toXdr('base64'),
  );
  return {
    ok: true,
    transactionData: sorobanTransactionData(outcome.footprint).toXdr('base64'),
    minResourceFee: resourceFeeFor(outcome.footprint).toString(),
    results: [{ auth: outcome.auth.map((a) => a.toXdr('base64')), xdr: outcome.result.toXdr('base64') }],
    events,
  };
}

function sourceAccountOf(envelope: xdr.TransactionEnvelope): string {
  // The passphrase only affects the hash, which simulation does not use.
  return new Transaction(envelope, 'simulation').source;
}
