import type { TradeKind } from '../domain/trade-kind';

export type PreparedState = 'prepared' | 'submitting' | 'succeeded' | 'failed';

/**
 * A transaction this service prepared, remembered by the hash of its (unsigned) transaction: the signed envelope a
 * client submits must hash to the same value, so any change to the transaction after prepare is refused.
 */
export interface PreparedTransaction {
  readonly hash: string;
  readonly kind: TradeKind;
  readonly networkId: number;
  readonly wallet: string;
  readonly keyId: string;
  readonly xdr: string;
  /** The transaction's maxTime: after it the network refuses the envelope, and so do we (TRANSACTION_EXPIRED). */
  readonly expiresAt: Date;
  /** Request context and expected effects (listing, pool, amounts in base units as strings, token decimals...). */
  readonly context: Record<string, unknown>;
  readonly state: PreparedState;
  /** The response of the first submit that reached a final state (success data, or the error envelope). */
  readonly outcome: SubmitOutcome | null;
  /** The signed envelope of the submit that claimed it (null while never claimed): a retry must send the same bytes. */
  readonly signedXdr?: string | null;
  readonly createdAt: Date;
}

export type SubmitOutcome =
  | { readonly state: 'succeeded'; readonly data: Record<string, unknown> }
  | { readonly state: 'failed'; readonly error: { readonly code: string; readonly message: string; readonly details?: Record<string, unknown> } };

export interface PreparedTransactions {
  save(tx: Omit<PreparedTransaction, 'state' | 'outcome'>): Promise<void>;
  find(hash: string): Promise<PreparedTransaction | null>;
  /**
   * prepared → submitting, atomically; also takes over a `submitting` claim made before `staleBefore`. False when
   * another submit holds it or it is final.
   */
  claim(hash: string, signedXdr: string, at: Date, staleBefore: Date): Promise<boolean>;
  /** submitting → succeeded | failed, keeping the first outcome. */
  finish(hash: string, outcome: SubmitOutcome, at: Date): Promise<void>;
  /** submitting → prepared: nothing reached the network (e.g. RPC unreachable), so the client may retry. */
  release(hash: string, at: Date): Promise<void>;
}
