import { AppError } from '@dob/domain';
import type { WalletKeyService } from '../wallet/wallet-key.service';
import { issueWalletToken, registerAgent, type WalletTokenSigner } from './wallet-flows';
import type { WalletChallenges } from './wallet-challenges';

/** Challenges, keys and a token signer that record calls in one log, so the order of steps is visible. */
function fakes(refuseSignature = false) {
  const log: unknown[][] = [];
  const challenges = {
    consume: async (wallet: string, signature: string) => {
      log.push(['consume', wallet, signature]);
      if (refuseSignature) throw new AppError('UNAUTHORIZED', 'Signature does not match');
      return {};
    },
  } as unknown as WalletChallenges;
  const keys = { createKey: async (...args: unknown[]) => (log.push(['createKey', ...args]), { key: 'svc_ak_x' }) } as unknown as WalletKeyService;
  const tokens: WalletTokenSigner = { issue: async (wallet) => (log.push(['token', wallet]), { token: 'jwt', expiresAt: new Date(0) }) };
  return { challenges, keys, tokens, log };
}

describe('the wallet flows that spend a signed challenge', () => {
  it('register consumes the signed challenge, then creates a key of origin "register"', async () => {
    const f = fakes();
    const key = { label: 'bot', scopes: ['read'] };
    await expect(registerAgent(f.challenges, f.keys, { wallet: 'GW', signature: 'sig', key })).resolves.toEqual({ key: 'svc_ak_x' });
    expect(f.log).toEqual([
      ['consume', 'GW', 'sig'],
      ['createKey', 'GW', { label: 'bot', scopes: ['read'], origin: 'register' }],
    ]);
  });

  it('a token is signed only after the challenge was consumed', async () => {
    const f = fakes();
    await expect(issueWalletToken(f.challenges, f.tokens, { wallet: 'GW', signature: 'sig' })).resolves.toMatchObject({
      token: 'jwt',
    });
    expect(f.log).toEqual([
      ['consume', 'GW', 'sig'],
      ['token', 'GW'],
    ]);
  });

  it('a refused signature creates no key and signs no token: the 401 passes through unchanged', async () => {
    const f = fakes(true);
    await expect(registerAgent(f.challenges, f.keys, { wallet: 'GW', signature: 'bad', key: { label: 'x', scopes: ['read'] } })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(issueWalletToken(f.challenges, f.tokens, { wallet: 'GW', signature: 'bad' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(f.log).toEqual([
      ['consume', 'GW', 'bad'],
      ['consume', 'GW', 'bad'],
    ]);
  });
});
