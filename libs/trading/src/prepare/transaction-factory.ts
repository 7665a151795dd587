import { Account, BASE_FEE, Contract, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { AppError } from '@dob/domain';
import { describeContractError, type ContractFamily } from '../domain/contract-errors';
import type { StellarNetwork } from '../networks/stellar-networks';
import { SimulationFailed, type ContractCall, type SorobanGateway } from '../ports/soroban-gateway.port';

/** Spec: an unsigned envelope is valid for 10 minutes after preparation. */
export const PREPARED_VALIDITY_SECONDS = 600;

export interface BuiltTransaction {
  readonly tx: Transaction;
  readonly hash: string;
  readonly expiresAt: Date;
}

/**
 * One Soroban invocation with the wallet as source: the sequence comes from getAccount, timebounds
 * [0, now + 10 min] (docs/decisions.md#d11), then simulate + assemble (footprint, resource fee, auth entries recorded for the
 * source account). A failing simulation means the call would fail on chain: TRANSACTION_FAILED with the contract
 * error named for the contract's version.
 */
export async function buildInvocation(
  chain: SorobanGateway,
  net: StellarNetwork,
  source: { wallet: string; sequence: string },
  call: ContractCall,
  family: ContractFamily,
  now: Date,
  validitySeconds = PREPARED_VALIDITY_SECONDS,
): Promise<BuiltTransaction> {
  const maxTime = Math.floor(now.getTime() / 1000) + validitySeconds;
  const draft = new TransactionBuilder(new Account(source.wallet, source.sequence), {
    fee: BASE_FEE,
    networkPassphrase: net.passphrase,
    timebounds: { minTime: 0, maxTime },
  })
    .addOperation(new Contract(call.contractId).call(call.fn, ...call.args))
    .build();
  let tx: Transaction;
  try {
    tx = await chain.prepare(net, draft);
  } catch (e) {
    if (e instanceof SimulationFailed) throw simulationError(family, call.fn, e.hostError);
    throw e;
  }
  return { tx, hash: Buffer.from(tx.hash()).toString('hex'), expiresAt: new Date(maxTime * 1000) };
}

export function simulationError(family: ContractFamily, fn: string, hostError: string): AppError {
  const contractError = describeContractError(family, hostError);
  const what = contractError ? `${contractError.name ?? 'unknown error'} (#${contractError.code})` : hostError;
  return new AppError('TRANSACTION_FAILED', `The ${fn} call fails on chain: ${what}`, {
    stage: 'simulation',
    ...(contractError ? { contract_error: contractError } : {}),
    host_error: hostError,
  });
}

export function requireAccount(sequence: string | null, wallet: string, networkId: number): string {
  if (sequence === null) {
    throw AppError.validation(`Wallet ${wallet} has no account on network ${networkId}; fund it first`, { fields: { wallet: 'account not found on chain' } });
  }
  return sequence;
}
