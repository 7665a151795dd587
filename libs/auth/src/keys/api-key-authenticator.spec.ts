import type { ActiveApiKey, ApiKeyIndex } from './api-key-index.port';
import { generateApiKey } from './api-key';
import { ApiKeyAuthenticator } from './api-key-authenticator';

const ACTIVE: ActiveApiKey = { keyId: 'k1', wallet: 'GWALLET', scopes: ['read'], rateLimitRpm: 60 };

/** An index whose cache holds `cached` hashes; counts the lookups that would reach storage. */
function fakeIndex(cached: Map<string, ActiveApiKey>, stored: Map<string, ActiveApiKey>) {
  const lookups: string[] = [];
  const index = {
    findActiveByHash: async (h: string) => (lookups.push(h), stored.get(h) ?? null),
    cachedActiveByHash: (h: string) => cached.get(h),
    recordLastUsed: async () => undefined,
  } as unknown as ApiKeyIndex;
  return { index, lookups };
}

describe('ApiKeyAuthenticator', () => {
  const issued = generateApiKey();
  let auth: ApiKeyAuthenticator | undefined;
  afterEach(() => auth?.close());

  it('answers a key the cache holds without a lookup', async () => {
    const { index, lookups } = fakeIndex(new Map([[issued.hash, ACTIVE]]), new Map());
    auth = new ApiKeyAuthenticator(index);
    expect(await auth.authenticate(issued.key)).toBe(ACTIVE);
    expect(lookups).toEqual([]);
  });

  it('looks a well-formed key up when the cache does not hold it', async () => {
    const { index, lookups } = fakeIndex(new Map(), new Map([[issued.hash, ACTIVE]]));
    auth = new ApiKeyAuthenticator(index);
    expect(await auth.authenticate(issued.key)).toBe(ACTIVE);
    expect(lookups).toEqual([issued.hash]);
  });

  it('refuses a key with a wrong checksum or length without a lookup', async () => {
    const { index, lookups } = fakeIndex(new Map(), new Map());
    auth = new ApiKeyAuthenticator(index);
    const last = issued.key.at(-1) === 'a' ? 'b' : 'a';
    expect(await auth.authenticate(issued.key.slice(0, -1) + last)).toBeNull();
    expect(await auth.authenticate(issued.key + 'x')).toBeNull();
    expect(lookups).toEqual([]);
  });

  it('authenticateNow: the key when the cache holds it, null for a wrong length, undefined when only storage can tell', async () => {
    const { index, lookups } = fakeIndex(new Map([[issued.hash, ACTIVE]]), new Map());
    auth = new ApiKeyAuthenticator(index);
    expect(auth.authenticateNow(issued.key)).toBe(ACTIVE);
    expect(auth.authenticateNow(issued.key + 'x')).toBeNull();
    const other = generateApiKey();
    expect(auth.authenticateNow(other.key)).toBeUndefined();
    expect(lookups).toEqual([]);
  });
});
