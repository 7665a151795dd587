import { AppError } from '@dob/domain';
import {
  CreateApiKeyCommand,
  CreateApiKeyHandler,
  ListApiKeysHandler,
  ListApiKeysQuery,
  RevokeApiKeyCommand,
  RevokeApiKeyHandler,
  RotateApiKeyCommand,
  RotateApiKeyHandler,
} from './wallet-key.handlers';
import type { WalletKeyService } from './wallet-key.service';

function fakeKeys(failure?: Error) {
  const calls: unknown[][] = [];
  const service = Object.fromEntries(
    ['createKey', 'revokeKey', 'rotateKey', 'listKeys'].map((name) => [
      name,
      (...args: unknown[]) => {
        calls.push([name, ...args]);
        return failure ? Promise.reject(failure) : Promise.resolve({ answeredBy: name });
      },
    ]),
  ) as unknown as WalletKeyService;
  return { service, calls };
}

describe('key management handlers', () => {
  const cases: [string, (s: WalletKeyService) => Promise<unknown>, unknown[]][] = [
    [
      'createKey',
      (s) => new CreateApiKeyHandler(s).execute(new CreateApiKeyCommand('GW', { label: 'ci', scopes: ['read', 'trade'] })),
      ['GW', { label: 'ci', scopes: ['read', 'trade'], origin: 'key_management' }],
    ],
    ['revokeKey', (s) => new RevokeApiKeyHandler(s).execute(new RevokeApiKeyCommand('GW', 'k1')), ['GW', 'k1']],
    ['rotateKey', (s) => new RotateApiKeyHandler(s).execute(new RotateApiKeyCommand('GW', 'k1')), ['GW', 'k1']],
    ['listKeys', (s) => new ListApiKeysHandler(s).execute(new ListApiKeysQuery('GW')), ['GW']],
  ];

  it.each(cases)('%s of the wallet: the service answers', async (method, run, args) => {
    const { service, calls } = fakeKeys();
    await expect(run(service)).resolves.toEqual({ answeredBy: method });
    expect(calls).toEqual([[method, ...args]]);
  });

  it("another wallet's key is NOT_FOUND, unchanged", async () => {
    const refusal = AppError.notFound('API key not found');
    await expect(new RevokeApiKeyHandler(fakeKeys(refusal).service).execute(new RevokeApiKeyCommand('GW', 'k9'))).rejects.toBe(refusal);
  });
});
