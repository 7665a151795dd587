import type { CreatedKey, WalletKeyService } from '../wallet/wallet-key.service';
import type { WalletChallenges } from './wallet-challenges';

/** A wallet's signed answer to its challenge (SEP-53), spent once by one of the flows below. */
export interface SignedChallenge {
  readonly wallet: string;
  readonly signature: string;
}

/** Signs key-management tokens (the API's JWT issuer); the token format is the transport's business. */
export interface WalletTokenSigner {
  issue(wallet: string): Promise<{ token: string; expiresAt: Date }>;
}

type Challenges = Pick<WalletChallenges, 'consume'>;

/** Register: the signed challenge is consumed first (a refused signature creates nothing), then the key is made. */
export async function registerAgent(
  challenges: Challenges,
  keys: Pick<WalletKeyService, 'createKey'>,
  signed: SignedChallenge & { readonly key: { label: string; scopes: readonly string[] } },
): Promise<CreatedKey> {
  await challenges.consume(signed.wallet, signed.signature);
  return keys.createKey(signed.wallet, { label: signed.key.label, scopes: signed.key.scopes, origin: 'register' });
}

/** A key-management token is signed only after the wallet's signed challenge was consumed. */
export async function issueWalletToken(
  challenges: Challenges,
  tokens: WalletTokenSigner,
  signed: SignedChallenge,
): Promise<{ token: string; expiresAt: Date }> {
  await challenges.consume(signed.wallet, signed.signature);
  return tokens.issue(signed.wallet);
}
