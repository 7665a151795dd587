import { Client } from 'pg';
import { createTestPostgresDatabase, testSchemaName, TEST_POSTGRES_URL } from '../libs/sql/src/testing/test-databases';
// Plain CommonJS shared with jest.config.js's global setup and teardown.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { dropSchemas, leftBehind, RUN_SCHEMA, STALE_MS } = require('./test-schemas') as {
  dropSchemas(url: string, doomed: (name: string) => boolean): Promise<number>;
  leftBehind(name: string, now: number): boolean;
  RUN_SCHEMA: RegExp;
  STALE_MS: number;
};

/** The test servers' schemas must not pile up: each `npm test` used to leave ~700 behind (≈ 1 GB per cluster). */
describe('test schemas', () => {
  const admin = new Client({ connectionString: TEST_POSTGRES_URL });
  const exists = async (schema: string) => (await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;
  beforeAll(() => admin.connect());
  afterAll(() => admin.end());

  it('are named by their run, in the form the sweep recognises', () => {
    const name = testSchemaName();
    expect(name).toMatch(RUN_SCHEMA);
    expect(leftBehind(name, Date.now())).toBe(false);
    expect(leftBehind(name, Date.now() + STALE_MS + 60_000)).toBe(true);
  });

  it("a test database's schema is dropped when the database is closed", async () => {
    const db = await createTestPostgresDatabase();
    await db.exec('CREATE TABLE kept (id int PRIMARY KEY)');
    const { rows } = await db.query<{ schema: string }>('SELECT current_schema() AS schema');
    const schema = rows[0]!.schema;
    expect(await exists(schema)).toBe(true);
    await db.close();
    expect(await exists(schema)).toBe(false);
  });

  it("the sweep drops killed runs' schemas and unmarked ones, never a running run's or anything else", async () => {
    const now = Date.now();
    const hex = () => Math.random().toString(16).slice(2, 10).padEnd(8, '0');
    const schemas = {
      killedRun: `t_${(now - STALE_MS - 60_000).toString(36)}_${hex()}`,
      runningRun: `t_${(now - 60_000).toString(36)}_${hex()}`,
      unmarked: `t_${hex()}${hex().slice(0, 4)}`,
      notATest: `kept_${hex()}`,
    };
    for (const s of Object.values(schemas)) await admin.query(`CREATE SCHEMA ${s}`);
    try {
      await dropSchemas(TEST_POSTGRES_URL, (name) => leftBehind(name, now) && Object.values(schemas).includes(name));
      expect(await exists(schemas.killedRun)).toBe(false);
      expect(await exists(schemas.unmarked)).toBe(false);
      expect(await exists(schemas.runningRun)).toBe(true);
      expect(await exists(schemas.notATest)).toBe(true);
    } finally {
      for (const s of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    }
  });
});
