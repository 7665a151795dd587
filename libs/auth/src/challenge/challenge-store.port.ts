/** An issued wallet challenge; shared by every API instance so any instance can accept the signature. */
export interface StoredChallenge {
  readonly nonce: string;
  readonly wallet: string;
  readonly message: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** How many outstanding challenges one requester, and everyone together, may hold for one wallet. */
export interface ChallengeQuota {
  readonly perRequester: number;
  readonly perWallet: number;
}

export interface ChallengeStore {
  /**
   * Saves a challenge issued to `requester` (the client's address bucket), atomically per wallet: drops expired
   * ones, then the requester's own oldest beyond `perRequester` — never another requester's — and refuses (returns
   * the earliest expiry of the wallet's challenges, when a slot frees up) once the wallet holds `perWallet`.
   */
  save(challenge: StoredChallenge, requester: string, quota: ChallengeQuota): Promise<'saved' | { full: Date }>;
  /** Unexpired, unconsumed challenges of a wallet, newest first. */
  outstanding(wallet: string, now: Date): Promise<StoredChallenge[]>;
  /** Atomically consumes one (single use): true for exactly one caller, false if gone or expired. */
  consume(nonce: string, wallet: string, now: Date): Promise<boolean>;
}
