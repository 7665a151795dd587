import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { createSqlAuth, walletEvents, walletStreamId } from '@dob/auth';
import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { FEATURED_OVERRIDES_TABLE } from '@dob/read-models';
import { createPostgresDatabase, type SqlDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';
import { contractAddr } from '../../../libs/read-models/src/testing/chain-scenario';

const ROOT = join(__dirname, '../../..');
const ops = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', ...env },
    encoding: 'utf8',
  });

/** `featured set|clear` and `keys set-rate-limit` as an operator runs them, against PostgreSQL. */
describe('ops CLI: featured pools and key rate limits', () => {
  const schema = testSchemaName();
  const env = { DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}` };
  let db: SqlDatabase;

  beforeAll(async () => {
    // A test's own connection, not the product's 1-s budget under test: a CI run under load once took longer.
    db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema, connectTimeoutMs: 10_000 });
  });
  afterAll(async () => {
    await db.close();
  });

  it('sets, updates and clears an operator featured pick; refuses bad input with exit 1', async () => {
    const pool = contractAddr('featured-by-ops');
    const set = ops(['featured', 'set', pool, '--network', '9', '--reason', 'Editor’s pick', '--position', '2'], env);
    expect([set.status, set.stderr]).toEqual([0, '']);
    const again = ops(['featured', 'set', pool, '--network', '9', '--reason', 'Audited operator'], env);
    expect(again.status).toBe(0);
    const rows = async () => (await db.query(`SELECT network_id, address, reason, position FROM ${FEATURED_OVERRIDES_TABLE}`)).rows;
    expect(await rows()).toEqual([{ network_id: 9, address: pool, reason: 'Audited operator', position: 0 }]);

    for (const [args, message] of [
      [['featured', 'set', 'CNOTAPOOL', '--network', '9', '--reason', 'x'], 'pool address must be a valid C…'],
      [['featured', 'set', pool, '--network', 'nine', '--reason', 'x'], '--network must be an integer'],
      [['featured', 'set', pool, '--network', '9', '--reason', ' '], '--reason must not be empty'],
      [['featured', 'set', pool, '--network', '9'], "required option '--reason <text>' not specified"],
    ] as const) {
      const r = ops([...args], env);
      expect([r.status, r.stderr]).toEqual([1, expect.stringContaining(message)]);
    }

    const clear = ops(['featured', 'clear', pool, '--network', '9'], env);
    expect(clear.status).toBe(0);
    expect(await rows()).toEqual([]);
  });

  it('sets a key tier through the wallet aggregate; the guard sees it; unknown keys and tiers are refused', async () => {
    const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    const auth = await createSqlAuth(db, events);
    const wallet = Keypair.random().publicKey();
    const created = await auth.keys.createKey(wallet, { label: 'bot', scopes: ['read'], origin: 'key_management' });
    expect((await auth.authenticator.authenticate(created.key))?.rateLimitRpm).toBe(60);

    const r = ops(['keys', 'set-rate-limit', created.record.keyId, '1000'], env);
    expect([r.status, r.stderr, r.stdout.trim()]).toEqual([0, '', `${created.record.keyId}: rate_limit_rpm = 1000`]);
    expect((await auth.authenticator.authenticate(created.key))?.rateLimitRpm).toBe(1000);
    expect((await events.readStream(walletStreamId(wallet))).map((e) => e.type)).toEqual(['ApiKeyCreated', 'ApiKeyRateLimitSet']);

    const tier = ops(['keys', 'set-rate-limit', created.record.keyId, '100'], env);
    expect([tier.status, tier.stderr]).toEqual([1, expect.stringContaining('VALIDATION_ERROR: rate_limit_rpm must be 60, 300')]);
    const unknown = ops(['keys', 'set-rate-limit', 'ak_01ZZZZZZZZZZZZZZZZZZZZZZZZ', '300'], env);
    expect([unknown.status, unknown.stderr]).toEqual([1, expect.stringContaining('NOT_FOUND: API key not found')]);
    expect((await auth.authenticator.authenticate(created.key))?.rateLimitRpm).toBe(1000);
    await auth.close();
    await events.close();
  });

  it("a tier change reaches an API instance's key cache (PostgreSQL) on its next request after the command", async () => {
    const events = await createSqlEventStore(db, { catalog: createChainEventCatalog(walletEvents) });
    const api = await createSqlAuth(db, events); // an API instance's auth: keys cached under a lease on the key epoch
    try {
      const created = await api.keys.createKey(Keypair.random().publicKey(), { label: 'cached', scopes: ['read'], origin: 'key_management' });
      expect((await api.authenticator.authenticate(created.key))?.rateLimitRpm).toBe(60);
      expect((await api.authenticator.authenticate(created.key))?.rateLimitRpm).toBe(60); // from memory now
      const epochBefore = (await db.query<{ epoch: string }>('SELECT epoch::text AS epoch FROM auth_key_epoch')).rows[0]!.epoch;
      const r = ops(['keys', 'set-rate-limit', created.record.keyId, '300'], env);
      expect([r.status, r.stderr]).toEqual([0, '']);
      expect((await db.query<{ epoch: string }>('SELECT epoch::text AS epoch FROM auth_key_epoch')).rows[0]!.epoch).not.toBe(epochBefore);
      expect((await api.authenticator.authenticate(created.key))?.rateLimitRpm).toBe(300);
    } finally {
      await api.close();
      await events.close();
    }
  });
});
