/** An issued wallet challenge; shared by every API instance so any instance can accept the signature. */
export interface StoredChallenge {
  readonly nonce: string;
  readonly wallet: string;
  readonly message: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

export interface ChallengeStore {
  /** Saves a challenge; drops expired ones and keeps at most `maxPerWallet` outstanding per wallet (newest kept). */
  save(challenge: StoredChallenge, maxPerWallet: number): Promise<void>;
  /** Unexpired, unconsumed challenges of a wallet, newest first. */
  outstanding(wallet: string, now: Date): Promise<StoredChallenge[]>;
  /** Atomically consumes one (single use): true for exactly one caller, false if gone or expired. */
  consume(nonce: string, wallet: string, now: Date): Promise<boolean>;
}
