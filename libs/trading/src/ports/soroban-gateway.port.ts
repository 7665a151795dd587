import type { Transaction, xdr } from '@stellar/stellar-sdk';
import type { StellarNetwork } from '../networks/stellar-networks';

export interface ContractCall {
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
}

/** A simulation that failed in the contract or host (e.g. "HostError: Error(Contract, #13)"). */
export class SimulationFailed extends Error {
  constructor(readonly hostError: string) {
    super(hostError);
  }
}

export type SendOutcome =
  | { readonly status: 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER' }
  /** Refused before inclusion; resultCode is the TransactionResult code name, e.g. txBadSeq, txTooLate. */
  | { readonly status: 'ERROR'; readonly resultCode: string };

export type TransactionLookup =
  | { readonly status: 'NOT_FOUND'; readonly latestLedgerCloseTime: number }
  | {
      readonly status: 'SUCCESS';
      readonly ledger: number;
      readonly events: readonly xdr.ContractEvent[];
      readonly returnValue: xdr.ScVal | null;
    }
  | {
      readonly status: 'FAILED';
      readonly ledger: number;
      readonly resultCode: string;
      readonly operationResultCode: string | null;
      /** Diagnostic text the RPC attached, if any (contract errors appear as "Error(Contract, #n)"). */
      readonly diagnostics: readonly string[];
    };

/**
 * The chain as trading needs it, over Stellar JSON-RPC. Unreachable RPC → AppError NETWORK_UNAVAILABLE; a
 * missing account → null; a failing simulation → SimulationFailed.
 */
export interface SorobanGateway {
  /** The account's current sequence number (getLedgerEntries via getAccount), or null when it does not exist. */
  accountSequence(network: StellarNetwork, account: string): Promise<string | null>;
  /** A read-only contract call by simulation (no signature, nothing sent): the return value. */
  read(network: StellarNetwork, source: string, call: ContractCall): Promise<xdr.ScVal>;
  /** simulateTransaction + assemble (footprint, resource fee, auth entries): the transaction to sign. */
  prepare(network: StellarNetwork, tx: Transaction): Promise<Transaction>;
  send(network: StellarNetwork, tx: Transaction): Promise<SendOutcome>;
  getTransaction(network: StellarNetwork, hash: string): Promise<TransactionLookup>;
  /** getEvents ids of one contract's events in one ledger emitted by one transaction, in order. */
  eventIds(network: StellarNetwork, q: { ledger: number; contractId: string; txHash: string }): Promise<{ id: string; topic: readonly xdr.ScVal[] }[]>;
}
