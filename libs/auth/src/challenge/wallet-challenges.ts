import { randomBytes } from 'node:crypto';
import { AppError } from '@dob/domain';
import type { ChallengeQuota, ChallengeStore, StoredChallenge } from './challenge-store.port';
import { isStellarAccountId, verifyWalletSignature, type SignatureScheme } from './signature';

export const CHALLENGE_TTL_SECONDS = 300;
/**
 * Outstanding challenges of one wallet: at most 5 per requester (its newest; a sixth replaces its own oldest) and 20
 * for everyone together, beyond which issuing is refused (429) until one expires or is used. The total bounds the
 * signature checks a register/token request can cause; the per-requester share means nobody can evict the
 * challenge the wallet's owner is signing (before issue 29 the newest 5 of anyone's were kept), and filling the
 * wallet's 20 takes four client addresses (IPv6: four /64s) each at its own rate limit for five minutes.
 */
export const CHALLENGE_QUOTA: ChallengeQuota = { perRequester: 5, perWallet: 20 };

export interface IssuedChallenge extends StoredChallenge {
  readonly expiresIn: number;
}

/**
 * Challenge text in Dob's shape ("DobProtocol Agent Auth\nAddress: …\nNonce: …\nTimestamp: <ms>"), naming the
 * service, the wallet, a 32-byte random nonce (64 hex) and the time.
 */
export function challengeMessage(service: string, wallet: string, nonce: string, issuedAtMs: number): string {
  return `${service} Agent Auth\nAddress: ${wallet}\nNonce: ${nonce}\nTimestamp: ${issuedAtMs}`;
}

const UNAUTHORIZED = () =>
  new AppError('UNAUTHORIZED', 'Signature does not match an outstanding challenge for this wallet (challenges are single use and expire after 5 minutes).');

export class WalletChallenges {
  constructor(
    private readonly store: ChallengeStore,
    private readonly clock: () => number = Date.now,
    private readonly service = 'DobProtocol',
  ) {}

  /** `requester`: who asks (the transport's client address bucket); each requester has its own share of the wallet's challenges. */
  async issue(wallet: string, requester: string): Promise<IssuedChallenge> {
    if (!isStellarAccountId(wallet)) throw AppError.validation('wallet must be a Stellar account public key (G…)');
    const now = this.clock();
    const nonce = randomBytes(32).toString('hex');
    const challenge: StoredChallenge = {
      nonce,
      wallet,
      message: challengeMessage(this.service, wallet, nonce, now),
      issuedAt: new Date(now),
      expiresAt: new Date(now + CHALLENGE_TTL_SECONDS * 1000),
    };
    const saved = await this.store.save(challenge, requester, CHALLENGE_QUOTA);
    if (saved !== 'saved') {
      const retryAfter = Math.max(1, Math.ceil((saved.full.getTime() - now) / 1000));
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `This wallet has ${CHALLENGE_QUOTA.perWallet} outstanding challenges; retry after ${retryAfter} seconds.`,
        {
          limit: CHALLENGE_QUOTA.perWallet,
          retry_after: retryAfter,
        },
        retryAfter,
      );
    }
    return { ...challenge, expiresIn: CHALLENGE_TTL_SECONDS };
  }

  /**
   * Finds the outstanding challenge of `wallet` that `signatureHex` signs and consumes it. Any failure (malformed,
   * foreign, expired, reused) is the same 401, so the answer does not tell an attacker which check failed.
   */
  async consume(wallet: string, signatureHex: string): Promise<{ scheme: SignatureScheme; challenge: StoredChallenge }> {
    if (!isStellarAccountId(wallet) || typeof signatureHex !== 'string') throw UNAUTHORIZED();
    const now = new Date(this.clock());
    for (const challenge of await this.store.outstanding(wallet, now)) {
      const scheme = verifyWalletSignature(wallet, challenge.message, signatureHex);
      if (!scheme) continue;
      if (await this.store.consume(challenge.nonce, wallet, now)) return { scheme, challenge };
      break; // signed the right challenge but another request consumed it first
    }
    throw UNAUTHORIZED();
  }
}
