import { EventEmitter } from 'node:events';
import { TransactionBuilder } from '@stellar/stellar-sdk';
import type { ContractKind, LedgerInfo, SorobanHost } from '../host/host.port';
import { type AdminOp, applyAdminOp, type HostExtras } from './admin-ops';
import { applyTransaction } from './apply-transaction';
import { ChainHistory } from './chain-history';
import type { ChainLog, LedgerLogEntry } from './chain-log.port';
import type { ClosedLedger, TransactionRecord } from './chain-records';
import { buildLedgerHeader } from './ledger-header-xdr';
import { rejectedResultXdr, type TxErrorName } from './transaction-xdr';
import { recheckAtApply, type ValidTransaction, validateTransaction } from './validate-transaction';

export const STANDALONE_PASSPHRASE = 'Standalone Network ; February 2017';
/** stellar-rpc's default history retention: 7 days of 5-second ledgers. */
export const DEFAULT_RETENTION_LEDGERS = 120_960;
/** Pending transactions the devnet holds before answering TRY_AGAIN_LATER. */
const MAX_QUEUE = 10_000;

export type SubmitResult =
  | { readonly status: 'PENDING' | 'DUPLICATE' | 'TRY_AGAIN_LATER'; readonly hash: string }
  | { readonly status: 'ERROR'; readonly hash: string; readonly errorResultXdr: string; readonly code: TxErrorName };

export interface DevnetChainOptions {
  readonly host: SorobanHost & HostExtras;
  readonly networkPassphrase?: string;
  readonly retentionLedgers?: number;
  /** Wall clock in ms (tests inject one). */
  readonly now?: () => number;
  /** Initial chain-clock offset from the wall clock in seconds (negative: seed history in the past). */
  readonly clockOffsetSeconds?: bigint;
  readonly log?: ChainLog;
}

/**
 * The devnet's ledger: admits transactions (validated like stellar-core), applies them in order when a ledger
 * closes, and keeps the history the RPC serves. Closing happens on an interval (start) or on demand (closeLedger,
 * the seeder's and tests' time control).
 */
export class DevnetChain {
  readonly networkPassphrase: string;
  readonly history: ChainHistory;
  private readonly host: SorobanHost & HostExtras;
  private readonly now: () => number;
  private readonly log?: ChainLog;
  private readonly emitter = new EventEmitter();
  private pending: ValidTransaction[] = [];
  private pendingHashes = new Set<string>();
  private pendingSources = new Set<string>();
  private pendingAdminOps: AdminOp[] = [];
  private clockOffsetSeconds = 0n;
  private applied = 0;
  private timer?: NodeJS.Timeout;

  constructor(options: DevnetChainOptions) {
    this.host = options.host;
    this.networkPassphrase = options.networkPassphrase ?? STANDALONE_PASSPHRASE;
    this.history = new ChainHistory(options.retentionLedgers ?? DEFAULT_RETENTION_LEDGERS);
    this.now = options.now ?? Date.now;
    this.log = options.log;
    this.clockOffsetSeconds = options.clockOffsetSeconds ?? 0n;
    this.emitter.setMaxListeners(0);
  }

  /** Closes ledger 1 (genesis) when nothing was restored. */
  genesis(): ClosedLedger {
    if (this.history.latest()) throw new Error('chain already has ledgers');
    return this.closeLedger();
  }

  latestLedger(): ClosedLedger {
    const latest = this.history.latest();
    if (!latest) throw new Error('chain has no ledger yet (call genesis or restore)');
    return latest;
  }

  oldestLedger(): ClosedLedger {
    return this.history.oldest() ?? this.latestLedger();
  }

  /** The ledger a transaction submitted now would be applied in, with its projected close time. */
  nextLedgerInfo(): LedgerInfo {
    const latest = this.history.latest();
    const wall = BigInt(Math.floor(this.now() / 1000)) + this.clockOffsetSeconds;
    const closeTime = latest && wall <= latest.closeTime ? latest.closeTime + 1n : wall;
    return { sequence: (latest?.sequence ?? 0) + 1, closeTime, networkPassphrase: this.networkPassphrase };
  }

  get hostView(): SorobanHost {
    return this.host;
  }

  get pendingCount(): number {
    return this.pending.length;
  }

  submit(envelopeXdr: string): SubmitResult {
    const validation = validateTransaction(envelopeXdr, { host: this.host, networkPassphrase: this.networkPassphrase, ledger: this.nextLedgerInfo() });
    if (!validation.ok) {
      return {
        status: 'ERROR',
        hash: hashOrEmpty(envelopeXdr, this.networkPassphrase),
        errorResultXdr: rejectedResultXdr(validation.code),
        code: validation.code,
      };
    }
    const tx = validation.tx;
    if (this.pendingHashes.has(tx.hash) || this.history.transaction(tx.hash)) return { status: 'DUPLICATE', hash: tx.hash };
    // stellar-core keeps at most one queued transaction per source account.
    if (this.pendingSources.has(tx.source) || this.pending.length >= MAX_QUEUE) return { status: 'TRY_AGAIN_LATER', hash: tx.hash };
    this.pending.push(tx);
    this.pendingHashes.add(tx.hash);
    this.pendingSources.add(tx.source);
    return { status: 'PENDING', hash: tx.hash };
  }

  /**
   * Closes the next ledger now. `closeTime` (unix seconds, must be later than the previous ledger's) is the
   * devnet's clock control: it moves the chain clock forward for good (later ledgers never go back in time).
   */
  closeLedger(options: { closeTime?: bigint } = {}): ClosedLedger {
    const projected = this.nextLedgerInfo();
    const previous = this.history.latest();
    let closeTime = projected.closeTime;
    if (options.closeTime !== undefined) {
      if (previous && options.closeTime <= previous.closeTime) throw new Error(`closeTime must be after ${previous.closeTime}`);
      closeTime = options.closeTime;
      const wall = BigInt(Math.floor(this.now() / 1000));
      // Time moved forward on purpose: keep later (interval) closes from falling back to the old clock.
      if (closeTime - wall > this.clockOffsetSeconds) this.clockOffsetSeconds = closeTime - wall;
    }
    const ledgerInfo: LedgerInfo = { sequence: projected.sequence, closeTime, networkPassphrase: this.networkPassphrase };
    const queue = this.pending;
    this.pending = [];
    this.pendingHashes = new Set();
    this.pendingSources = new Set();

    const transactions: TransactionRecord[] = [];
    for (const tx of queue) {
      // Re-checked at apply time: a transaction that became invalid (expired, sequence taken) is dropped, never included.
      if (recheckAtApply(tx, { host: this.host, networkPassphrase: this.networkPassphrase, ledger: ledgerInfo })) continue;
      transactions.push(applyTransaction(this.host, tx, ledgerInfo, transactions.length + 1));
    }
    return this.seal(ledgerInfo, transactions, previous);
  }

  private seal(ledgerInfo: LedgerInfo, transactions: TransactionRecord[], previous: ClosedLedger | undefined): ClosedLedger {
    const previousHash = previous?.hash ?? '0'.repeat(64);
    const transactionHashes = transactions.map((t) => t.hash);
    const header = buildLedgerHeader({ sequence: ledgerInfo.sequence, closeTime: ledgerInfo.closeTime, previousHash, transactionHashes });
    const ledger: ClosedLedger = { sequence: ledgerInfo.sequence, closeTime: ledgerInfo.closeTime, previousHash, transactionHashes, ...header };
    const entry: LedgerLogEntry = { adminOps: this.pendingAdminOps, ledger, transactions };
    this.pendingAdminOps = [];
    this.log?.append(entry);
    this.applied += transactions.length;
    this.history.append(ledger, transactions);
    this.emitter.emit('ledger', ledger, transactions);
    return ledger;
  }

  /**
   * Rebuilds history from a persisted entry; with `reapply` the entry's admin ops and transactions are executed
   * again against the host (state not covered by a host snapshot) and must give the logged results.
   */
  restore(entry: LedgerLogEntry, reapply: boolean): void {
    if (reapply) {
      for (const op of entry.adminOps) applyAdminOp(this.host, op, this.networkPassphrase);
      const ledgerInfo: LedgerInfo = { sequence: entry.ledger.sequence, closeTime: entry.ledger.closeTime, networkPassphrase: this.networkPassphrase };
      for (const logged of entry.transactions) {
        const valid = validateTransaction(logged.envelopeXdr, {
          host: this.host,
          networkPassphrase: this.networkPassphrase,
          ledger: ledgerInfo,
          signaturesVerified: true,
        });
        if (!valid.ok) throw new Error(`replay of ${logged.hash} in ledger ${entry.ledger.sequence} failed validation: ${valid.code}`);
        const replayed = applyTransaction(this.host, valid.tx, ledgerInfo, logged.applicationOrder);
        if (replayed.resultXdr !== logged.resultXdr) throw new Error(`replay of ${logged.hash} diverged from the ledger log`);
      }
    }
    this.history.append(entry.ledger, entry.transactions);
    this.applied += entry.transactions.length;
  }

  /** Transactions included since genesis (including ones no longer retained). */
  get appliedTransactionCount(): number {
    return this.applied;
  }

  createAccount(accountId: string, balance: bigint): void {
    this.admin({ op: 'createAccount', accountId, balance: balance.toString(), ledgerSequence: this.nextLedgerInfo().sequence });
  }

  deployContract(kind: ContractKind, salt: Buffer): string {
    const ledger = this.nextLedgerInfo();
    const address = this.host.deployContract(kind, salt, ledger);
    this.pendingAdminOps.push({
      op: 'deployContract',
      kind,
      salt: salt.toString('hex'),
      ledger: { sequence: ledger.sequence, closeTime: ledger.closeTime.toString() },
      address,
    });
    return address;
  }

  deployStellarAsset(code: string, issuer: string | undefined): string {
    if (!this.host.deployStellarAsset) throw new Error('this host cannot deploy Stellar Asset Contracts');
    const ledger = this.nextLedgerInfo();
    const address = this.host.deployStellarAsset(code, issuer, ledger);
    this.pendingAdminOps.push({
      op: 'deployStellarAsset',
      code,
      issuer: issuer ?? null,
      ledger: { sequence: ledger.sequence, closeTime: ledger.closeTime.toString() },
      address,
    });
    return address;
  }

  /**
   * Devnet clock control: later ledgers close at wall clock + offset (never before the previous ledger + 1 s).
   * The seeder runs with a negative offset so that seeded history lies in the past, then resets it to 0.
   */
  setClockOffset(seconds: bigint): void {
    this.clockOffsetSeconds = seconds;
  }

  private admin(op: AdminOp): void {
    applyAdminOp(this.host, op, this.networkPassphrase);
    this.pendingAdminOps.push(op);
  }

  onLedgerClosed(listener: (ledger: ClosedLedger, transactions: readonly TransactionRecord[]) => void): () => void {
    this.emitter.on('ledger', listener);
    return () => this.emitter.off('ledger', listener);
  }

  /** Resolves with the transaction once a ledger includes it, or undefined after `timeoutMs` (or if it was dropped). */
  waitForTransaction(hash: string, timeoutMs: number): Promise<TransactionRecord | undefined> {
    const found = this.history.transaction(hash);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const off = this.onLedgerClosed(() => {
        const record = this.history.transaction(hash);
        if (record || !this.pendingHashes.has(hash)) {
          clearTimeout(timer);
          off();
          resolve(record);
        }
      });
      const timer = setTimeout(() => {
        off();
        resolve(undefined);
      }, timeoutMs);
    });
  }

  start(intervalMs: number): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.closeLedger(), intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

function hashOrEmpty(envelopeXdr: string, passphrase: string): string {
  try {
    return Buffer.from(TransactionBuilder.fromXDR(envelopeXdr, passphrase).hash()).toString('hex');
  } catch {
    return '';
  }
}
