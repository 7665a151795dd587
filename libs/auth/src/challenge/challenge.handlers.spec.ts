import { AppError } from '@dob/domain';
import type { WalletKeyService } from '../wallet/wallet-key.service';
import {
  IssueChallengeCommand,
  IssueChallengeHandler,
  IssueWalletTokenCommand,
  IssueWalletTokenHandler,
  RegisterAgentCommand,
  RegisterAgentHandler,
  type WalletTokenSigner,
} from './challenge.handlers';
import type { WalletChallenges } from './wallet-challenges';

/** Challenges, keys and a token signer that record calls in one log, so the order of steps is visible. */
function fakes(refuseSignature = false) {
  const log: unknown[][] = [];
  const challenges = {
    issue: async (wallet: string, requester: string) => (log.push(['issue', wallet, requester]), { wallet, nonce: 'n' }),
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

describe('wallet flow command handlers', () => {
  it('issuing a challenge stores one for the wallet and its requester and returns it', async () => {
    const f = fakes();
    await expect(new IssueChallengeHandler(f.challenges).execute(new IssueChallengeCommand('GW', '203.0.113.7'))).resolves.toEqual({
      wallet: 'GW',
      nonce: 'n',
    });
    expect(f.log).toEqual([['issue', 'GW', '203.0.113.7']]);
  });

  it('register consumes the signed challenge, then creates a key of origin "register"', async () => {
    const f = fakes();
    const key = { label: 'bot', scopes: ['read'] };
    await expect(new RegisterAgentHandler(f.challenges, f.keys).execute(new RegisterAgentCommand('GW', 'sig', key))).resolves.toEqual({ key: 'svc_ak_x' });
    expect(f.log).toEqual([
      ['consume', 'GW', 'sig'],
      ['createKey', 'GW', { label: 'bot', scopes: ['read'], origin: 'register' }],
    ]);
  });

  it('a token is signed only after the challenge was consumed', async () => {
    const f = fakes();
    await expect(new IssueWalletTokenHandler(f.challenges, f.tokens).execute(new IssueWalletTokenCommand('GW', 'sig'))).resolves.toMatchObject({
      token: 'jwt',
    });
    expect(f.log).toEqual([
      ['consume', 'GW', 'sig'],
      ['token', 'GW'],
    ]);
  });

  it('a refused signature creates no key and signs no token: the 401 passes through unchanged', async () => {
    const f = fakes(true);
    await expect(
      new RegisterAgentHandler(f.challenges, f.keys).execute(new RegisterAgentCommand('GW', 'bad', { label: 'x', scopes: ['read'] })),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(new IssueWalletTokenHandler(f.challenges, f.tokens).execute(new IssueWalletTokenCommand('GW', 'bad'))).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    expect(f.log).toEqual([
      ['consume', 'GW', 'bad'],
      ['consume', 'GW', 'bad'],
    ]);
  });
});
