import { AppError } from '@dob/domain';
import { describeContractError, splitterFamily, type ContractFamily } from '../domain/contract-errors';
import type { TradeKind } from '../domain/trade-kind';
import { explorerTxUrl, type StellarNetwork, type StellarNetworks } from '../networks/stellar-networks';
import type { PreparedTransaction, PreparedTransactions, SubmitOutcome } from '../ports/prepared-transactions.port';
import { SimulationFailed, type SorobanGateway, type TransactionLookup } from '../ports/soroban-gateway.port';
import type { Caller } from '../prepare/prepare-service';
import { isSignedBy, parseSignedEnvelope } from './signed-envelope';
import { decodeEvents, submitResponse } from './submit-outcome';
import { scValToNative, type Transaction } from '@stellar/stellar-sdk';

export interface SubmitDeps {
  readonly networks: StellarNetworks;
  readonly chain: SorobanGateway;
  readonly prepared: PreparedTransactions;
  readonly clock?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
  /** getTransaction polling interval (default 500 ms; Stellar closes a ledger every ~5 s, the devnet faster). */
  readonly pollIntervalMs?: number;
  /** A `submitting` claim older than this is taken over by a retry (its process died or lost the RPC). */
  readonly staleClaimMs?: number;
  /** How long a duplicate of a submit still in flight waits for its outcome before a 409 with Retry-After (default 20 s). */
  readonly inFlightWaitMs?: number;
}

/** What a submit answers: the trade's result, and whether it is the stored outcome of an earlier submit (a replay). */
export interface SubmitResult {
  readonly data: Record<string, unknown>;
  readonly replayed: boolean;
}

const DEFAULT_IN_FLIGHT_WAIT_MS = 20_000;

const FINAL_ERROR_STATUS: Record<string, AppError['code']> = { TRANSACTION_FAILED: 'TRANSACTION_FAILED', TRANSACTION_EXPIRED: 'TRANSACTION_EXPIRED' };

/**
 * Submit: accept only a transaction this service prepared (same hash), for the request's network, signed by the
 * key's wallet, not expired. State machine per prepared row: prepared → submitting (atomic claim) → succeeded |
 * failed; the first final outcome is kept, and the same signed envelope again gets it back marked as a replay
 * (safe retries, like payment APIs' idempotent requests).
 */
export class SubmitService {
  private readonly now: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: SubmitDeps) {
    this.now = deps.clock ?? (() => new Date());
    this.sleep = deps.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async submit(kind: TradeKind, caller: Caller, req: { signed_xdr: string; network_id: number }): Promise<SubmitResult> {
    const net = this.deps.networks.get(req.network_id);
    const { tx, hash } = parseSignedEnvelope(req.signed_xdr, net.passphrase);
    const row = await this.deps.prepared.find(hash);
    if (!row || row.networkId !== net.id) {
      throw AppError.validation('Transaction was not prepared by this service for this network (or was modified after prepare)', { transaction_hash: hash });
    }
    if (row.kind !== kind) throw AppError.validation(`This transaction was prepared by prepare-${row.kind}; submit it with submit-${row.kind}`);
    if (row.wallet !== caller.wallet) throw AppError.validation("Transaction was prepared for another wallet than this API key's");
    if (!isSignedBy(tx, row.wallet)) {
      throw AppError.validation(`Transaction is not signed by the wallet ${row.wallet} for network ${net.id} (passphrase "${net.passphrase}")`);
    }
    if (row.state === 'succeeded' || row.state === 'failed') return this.duplicate(row, req.signed_xdr);
    if (row.state === 'submitting') sameEnvelope(row, req.signed_xdr);
    const now = this.now();
    if (row.state === 'prepared' && now.getTime() > row.expiresAt.getTime()) throw expired(row);
    const staleBefore = new Date(now.getTime() - (this.deps.staleClaimMs ?? 60_000));
    if (!(await this.deps.prepared.claim(hash, req.signed_xdr, now, staleBefore))) {
      const current = await this.deps.prepared.find(hash);
      return this.duplicate(current ?? row, req.signed_xdr);
    }
    const outcome = await this.sendAndSettle(net, tx, row);
    await this.deps.prepared.finish(hash, outcome, this.now());
    return { data: unwrap(outcome), replayed: false };
  }

  /**
   * The envelope was submitted before (a client retry after a lost response, or a concurrent duplicate): the very
   * same signed bytes get the first outcome, after waiting a bounded time for a submit still in flight; other bytes
   * for the same transaction are refused. A `submitting` claim gone stale (its process died) is taken over instead.
   */
  private async duplicate(row: PreparedTransaction, signedXdr: string): Promise<SubmitResult> {
    sameEnvelope(row, signedXdr);
    const waitMs = this.deps.inFlightWaitMs ?? DEFAULT_IN_FLIGHT_WAIT_MS;
    const poll = this.deps.pollIntervalMs ?? 500;
    let current: PreparedTransaction | null = row;
    // Counted, not clocked: the wait is bounded even if the clock stands still.
    for (let waited = 0; current?.state === 'submitting' && waited < waitMs; waited += poll) {
      await this.sleep(poll);
      current = await this.deps.prepared.find(row.hash);
    }
    if (current?.state === 'succeeded' || current?.state === 'failed') return { data: unwrap(current.outcome!), replayed: true };
    if (current?.state === 'prepared') {
      // The first attempt released its claim (nothing reached the network): this retry may send it.
      throw AppError.conflict(
        'The first submit of this transaction did not reach the network; retry it',
        {
          transaction_hash: row.hash,
          state: 'prepared',
          retry_after_seconds: 1,
        },
        1,
      );
    }
    const retryAfter = Math.max(1, Math.ceil(poll / 1000));
    throw AppError.conflict(
      'Transaction is still being submitted; retry to get its outcome',
      { transaction_hash: row.hash, state: 'submitting', retry_after_seconds: retryAfter },
      retryAfter,
    );
  }

  /** sendTransaction then getTransaction until final, per stellar-rpc semantics. */
  private async sendAndSettle(net: StellarNetwork, tx: Transaction, row: PreparedTransaction): Promise<SubmitOutcome> {
    const hash = row.hash;
    // Whether the transaction may already be on the network: a claim taken over (its process may have sent it), or
    // once sendTransaction was called, even if its answer never came (a timeout after the RPC accepted it). Only when
    // it cannot be there is the claim released: a released claim is sent again without a lookup, which answers
    // txBadSeq once the first copy was applied (a success recorded as a failure) and, past maxTime, TRANSACTION_EXPIRED
    // "prepare a new one" (the agent trades twice).
    let maybeSent = row.state === 'submitting';
    try {
      // A taken-over claim may already be on chain: look before sending again.
      const known = row.state === 'submitting' ? await this.deps.chain.getTransaction(net, hash) : null;
      if (known && known.status !== 'NOT_FOUND') return await this.settled(net, tx, row, known);
      for (;;) {
        maybeSent = true;
        const r = await this.deps.chain.send(net, tx);
        if (r.status === 'PENDING' || r.status === 'DUPLICATE') break; // DUPLICATE: already in the queue = sent
        if (r.status === 'ERROR') {
          if (r.resultCode === 'txTooLate')
            return failed('TRANSACTION_EXPIRED', 'Transaction expired before it reached the network', { result_code: r.resultCode, transaction_hash: hash });
          return failed('TRANSACTION_FAILED', `The network refused the transaction (${r.resultCode})`, { result_code: r.resultCode, transaction_hash: hash });
        }
        // TRY_AGAIN_LATER: the node's queue is full; retry until the transaction's maxTime.
        if (this.now().getTime() > row.expiresAt.getTime())
          return failed('TRANSACTION_EXPIRED', 'Transaction expired while the network asked to try again later', { transaction_hash: hash });
        await this.sleep(1000);
      }
      const poll = this.deps.pollIntervalMs ?? 500;
      for (;;) {
        const r = await this.deps.chain.getTransaction(net, hash);
        if (r.status !== 'NOT_FOUND') return await this.settled(net, tx, row, r);
        // NOT_FOUND is not failure until the ledger clock passes the tx's maxTime (then it can never be included).
        const maxTime = row.expiresAt.getTime() / 1000;
        if (r.latestLedgerCloseTime > maxTime || this.now().getTime() / 1000 > maxTime + 120) {
          return failed('TRANSACTION_EXPIRED', 'Transaction was not included before it expired', { transaction_hash: hash });
        }
        await this.sleep(poll);
      }
    } catch (e) {
      // Nothing reached the network: let the client retry the same envelope. Once it may have, the claim stays and a
      // retry after staleClaimMs looks the transaction up instead of sending it again blindly.
      if (!maybeSent) await this.deps.prepared.release(hash, this.now());
      throw e;
    }
  }

  private async settled(
    net: StellarNetwork,
    tx: Transaction,
    row: PreparedTransaction,
    r: Exclude<TransactionLookup, { status: 'NOT_FOUND' }>,
  ): Promise<SubmitOutcome> {
    const url = explorerTxUrl(net, row.hash);
    if (r.status === 'SUCCESS') {
      const events = decodeEvents(r.events);
      let listedId: string | undefined;
      if (row.kind === 'list') {
        const ids = await this.deps.chain.eventIds(net, { ledger: r.ledger, contractId: String(row.context.pool), txHash: row.hash });
        listedId = ids.find((e) => e.topic[0] !== undefined && scValToNative(e.topic[0]) === 'listed')?.id;
      }
      return { state: 'succeeded', data: submitResponse(row, row.hash, events, url, listedId) };
    }
    const family = familyOf(row);
    let contractError = r.diagnostics.map((d) => describeContractError(family, d)).find((d) => d !== null) ?? null;
    if (!contractError) contractError = await this.diagnose(net, tx, family);
    const name = contractError ? ` ${contractError.name ?? 'unknown error'} (#${contractError.code})` : '';
    return failed('TRANSACTION_FAILED', `Transaction failed on chain:${name || ` ${r.resultCode}`}`, {
      transaction_hash: row.hash,
      ledger: r.ledger,
      result_code: r.resultCode,
      operation_result_code: r.operationResultCode,
      ...(contractError ? { contract_error: contractError } : {}),
      stellar_explorer_url: url,
    });
  }

  /** RPCs without diagnostic events say only "trapped": re-simulating the same call names the contract error. */
  private async diagnose(net: StellarNetwork, tx: Transaction, family: ContractFamily) {
    try {
      await this.deps.chain.prepare(net, tx);
      return null;
    } catch (e) {
      return e instanceof SimulationFailed ? describeContractError(family, e.hostError) : null;
    }
  }
}

function familyOf(row: PreparedTransaction): ContractFamily {
  return row.kind === 'contribute' || row.kind === 'reclaim' ? 'crowdfunding' : splitterFamily(row.context.pool_version as string | null);
}

function failed(code: 'TRANSACTION_FAILED' | 'TRANSACTION_EXPIRED', message: string, details: Record<string, unknown>): SubmitOutcome {
  return { state: 'failed', error: { code, message, details } };
}

function unwrap(outcome: SubmitOutcome): Record<string, unknown> {
  if (outcome.state === 'succeeded') return outcome.data;
  throw new AppError(FINAL_ERROR_STATUS[outcome.error.code] ?? 'TRANSACTION_FAILED', outcome.error.message, outcome.error.details);
}

function sameEnvelope(row: PreparedTransaction, signedXdr: string): void {
  if (row.signedXdr && row.signedXdr !== signedXdr) {
    throw AppError.conflict('This transaction was already submitted with a different signed envelope', { transaction_hash: row.hash, state: row.state });
  }
}

function expired(row: PreparedTransaction): AppError {
  return new AppError('TRANSACTION_EXPIRED', `Transaction expired at ${row.expiresAt.toISOString()}; prepare a new one`, {
    transaction_hash: row.hash,
    expires_at: row.expiresAt.toISOString(),
  });
}
