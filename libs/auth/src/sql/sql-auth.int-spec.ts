import { Keypair } from '@stellar/stellar-sdk';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type EventStore } from '@dob/event-store';
import { type SqlDatabase } from '@dob/sql';
import { testDatabases } from '../../../sql/src/testing/test-databases';
import { CHALLENGE_QUOTA } from '../challenge/wallet-challenges';
import { hashApiKey } from '../keys/api-key';
import { walletEvents, walletStreamId } from '../wallet/wallet.events';
import { createSqlAuth, type AuthComponents } from './create-sql-auth';
import { SqlKeyChangeSignal } from './sql-key-change-signal';

describe.each(testDatabases())('auth over SQL on $name', (factory) => {
  let db: SqlDatabase;
  let events: EventStore;
  let auth: AuthComponents;
  let now = Date.parse('2026-03-10T12:00:00Z');

  // One database per adapter (PGlite start-up is slow); every test uses fresh random wallets.
  beforeAll(async () => {
    db = await factory.create();
    events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    auth = await createSqlAuth(db, events, { clock: () => now, lastUsedFlushMs: 60_000 });
  });
  beforeEach(() => {
    now = Date.parse('2026-03-10T12:00:00Z');
  });
  afterAll(async () => {
    await auth.close();
    await events.close();
    await db.close();
  });

  it('every change to a key moves the key epoch (create, tier, revoke)', async () => {
    const signal = new SqlKeyChangeSignal(db);
    const wallet = Keypair.random().publicKey();
    const seen = [await signal.readEpoch()];
    const { record } = await auth.keys.createKey(wallet, { label: 'epoch', scopes: ['read'], origin: 'key_management' });
    seen.push(await signal.readEpoch());
    await auth.keys.setRateLimit(record.keyId, 300);
    seen.push(await signal.readEpoch());
    await auth.keys.revokeKey(wallet, record.keyId);
    seen.push(await signal.readEpoch());
    for (let i = 1; i < seen.length; i++) expect(BigInt(seen[i]!)).toBeGreaterThan(BigInt(seen[i - 1]!));
  });

  it('consumes a challenge exactly once, only for its wallet, only before it expires', async () => {
    const kp = Keypair.random();
    const c = await auth.challenges.issue(kp.publicKey(), 'client-a');
    const sig = Buffer.from(kp.signMessage(c.message)).toString('hex');
    expect(await auth.challenges.consume(Keypair.random().publicKey(), sig).catch((e) => e.code)).toBe('UNAUTHORIZED');
    const results = await Promise.allSettled([1, 2, 3].map(() => auth.challenges.consume(kp.publicKey(), sig)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const late = await auth.challenges.issue(kp.publicKey(), 'client-a');
    now += 300_001;
    const lateSig = Buffer.from(kp.sign(Buffer.from(late.message))).toString('hex');
    expect(await auth.challenges.consume(kp.publicKey(), lateSig).catch((e) => e.code)).toBe('UNAUTHORIZED');
  });

  it("keeps a requester's newest 5 per wallet: its own sixth replaces its oldest", async () => {
    const kp = Keypair.random();
    const first = await auth.challenges.issue(kp.publicKey(), 'client-a');
    for (let i = 0; i < CHALLENGE_QUOTA.perRequester; i++) {
      now += 1;
      await auth.challenges.issue(kp.publicKey(), 'client-a');
    }
    const sig = Buffer.from(kp.signMessage(first.message)).toString('hex');
    expect(await auth.challenges.consume(kp.publicKey(), sig).catch((e) => e.code)).toBe('UNAUTHORIZED');
  });

  it("never evicts another requester's challenge: others fill the wallet's quota and are refused, the owner's still signs", async () => {
    const kp = Keypair.random();
    const owners = await auth.challenges.issue(kp.publicKey(), 'owner');
    const refusals: string[] = [];
    for (let i = 0; i < 40; i++) {
      now += 1;
      await auth.challenges.issue(kp.publicKey(), `attacker-${i % 8}`).catch((e) => refusals.push(`${e.code} ${e.details?.retry_after}`));
    }
    // 19 slots besides the owner's: the other 21 requests are refused, with the seconds until the owner's expires.
    expect(refusals).toHaveLength(40 - (CHALLENGE_QUOTA.perWallet - 1));
    expect(new Set(refusals)).toEqual(new Set(['RATE_LIMIT_EXCEEDED 300']));
    const sig = Buffer.from(kp.signMessage(owners.message)).toString('hex');
    await expect(auth.challenges.consume(kp.publicKey(), sig)).resolves.toMatchObject({ challenge: { nonce: owners.nonce } });
  });

  it('creates, rotates and revokes keys through the aggregate and the index follows before each call returns', async () => {
    const wallet = Keypair.random().publicKey();
    const created = await auth.keys.createKey(wallet, { label: 'bot', scopes: ['read', 'trade'], origin: 'key_management' });
    expect(await auth.authenticator.authenticate(created.key)).toEqual({
      keyId: created.record.keyId,
      wallet,
      scopes: ['read', 'trade'],
      rateLimitRpm: 60,
    });
    const rotated = await auth.keys.rotateKey(wallet, created.record.keyId);
    expect(await auth.authenticator.authenticate(created.key)).toBeNull();
    expect((await auth.authenticator.authenticate(rotated.key))?.keyId).toBe(created.record.keyId);
    await auth.keys.setRateLimit(created.record.keyId, 300);
    expect((await auth.authenticator.authenticate(rotated.key))?.rateLimitRpm).toBe(300);
    await auth.keys.revokeKey(wallet, created.record.keyId);
    expect(await auth.authenticator.authenticate(rotated.key)).toBeNull();
    const stream = await events.readStream(walletStreamId(wallet));
    expect(stream.map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRotated', 'ApiKeyRateLimitSet', 'ApiKeyRevoked']);
    // Only hashes are stored, in the stream and in the index.
    const text = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x));
    const dump = text(stream) + text((await db.query('SELECT * FROM auth_api_keys')).rows);
    expect(dump).not.toContain(created.key);
    expect(dump).not.toContain(rotated.key);
    expect(dump).toContain(hashApiKey(rotated.key));
  });

  it('holds "at most 10 active keys" under 20 concurrent creates on a wallet holding 5', async () => {
    const wallet = Keypair.random().publicKey();
    for (let i = 0; i < 5; i++) await auth.keys.createKey(wallet, { label: `k${i}`, scopes: ['read'], origin: 'key_management' });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => auth.keys.createKey(wallet, { label: `c${i}`, scopes: ['read'], origin: 'key_management' })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(ok).toHaveLength(5);
    expect(refused.map((r) => r.reason.code)).toEqual(Array(15).fill('VALIDATION_ERROR'));
    expect(await auth.keys.listKeys(wallet)).toHaveLength(10);
    const { rows } = await db.query<{ n: string }>('SELECT count(*)::int8 AS n FROM auth_api_keys WHERE wallet = $1 AND revoked_at IS NULL', [wallet]);
    expect(rows[0]!.n).toBe('10');
  });

  it('batches last_used_at instead of writing per request', async () => {
    const wallet = Keypair.random().publicKey();
    const { key, record } = await auth.keys.createKey(wallet, { label: 'bot', scopes: ['read'], origin: 'key_management' });
    await auth.authenticator.authenticate(key);
    expect((await auth.keys.listKeys(wallet))[0]!.lastUsedAt).toBeNull();
    await auth.authenticator.flush();
    expect((await auth.keys.listKeys(wallet))[0]).toMatchObject({ keyId: record.keyId, lastUsedAt: new Date(now).toISOString() });
  });
});
