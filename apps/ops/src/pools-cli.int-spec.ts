import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { createChainEventCatalog, poolStreamId } from '@dob/domain';
import { createSqlEventStore } from '@dob/event-store';
import { createPostgresDatabase } from '@dob/sql';
import { TEST_POSTGRES_URL, testSchemaName } from '../../../libs/sql/src/testing/test-databases';

const ROOT = join(__dirname, '../../..');
const ops = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['-r', join(__dirname, '../../../scripts/register.js'), join(__dirname, 'main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', ...env },
    encoding: 'utf8',
  });

jest.setTimeout(60_000);

it('pools register: registers, updates only the changed fields, reports no change, refuses bad input', async () => {
  const schema = testSchemaName();
  const env = { DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${schema}` };
  const db = await createPostgresDatabase({ connectionString: TEST_POSTGRES_URL, schema });
  await (await createSqlEventStore(db)).close(); // creates the schema's event tables
  const pool = StrKey.encodeContract(randomBytes(32));
  const token = StrKey.encodeContract(randomBytes(32));
  try {
    const first = ops(
      [
        'pools',
        'register',
        pool,
        '--network',
        '9',
        '--name',
        'Solar Farm Alpha',
        '--ticker',
        'SFA',
        '--access-type',
        'p',
        '--distribution-type',
        'tr',
        '--apr',
        '12.5',
        '--max-participants',
        '100',
        '--token',
        token,
      ],
      env,
    );
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(`registered pool ${pool} on network 9: Solar Farm Alpha (SFA)`);

    const update = ops(['pools', 'register', pool, '--network', '9', '--apr', '9.0', '--max-participants', 'none'], env);
    expect(update.stdout).toContain(`updated metadata of pool ${pool}`);
    const again = ops(['pools', 'register', pool, '--network', '9', '--apr', '9.0'], env);
    expect(again.stdout).toContain(`no change to pool ${pool}`);

    const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
    const events = await store.readStream(poolStreamId(9, pool));
    await store.close();
    expect(events.map((e) => e.type)).toEqual(['PoolRegistered', 'PoolMetadataUpdated']);
    expect(events[0].data).toMatchObject({
      network_id: 9,
      pool,
      name: 'Solar Farm Alpha',
      ticker: 'SFA',
      access_type: 'p',
      distribution_type: 'tr',
      estimated_apr: '12.5',
      max_participants: 100,
      token_to_distribute: token,
    });
    expect((events[1].data as { changes: unknown }).changes).toEqual({ estimated_apr: '9.0', max_participants: null });

    const missing = ops(['pools', 'register', StrKey.encodeContract(randomBytes(32)), '--network', '9', '--name', 'X'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('--ticker is required to register a new pool');
    const notAPool = ops(['pools', 'register', Keypair.random().publicKey(), '--network', '9', '--name', 'X'], env);
    expect(notAPool.status).toBe(1);
    expect(notAPool.stderr).toContain('pool address must be a valid C… Stellar address');
    const badApr = ops(['pools', 'register', pool, '--network', '9', '--apr', '12%'], env);
    expect(badApr.status).toBe(1);
    expect(badApr.stderr).toContain('--apr must be a decimal percent');
  } finally {
    await db.close();
  }
});
