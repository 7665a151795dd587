import { createTestMongoDatabase } from './testing/test-mongo';

describe('openMongoDatabase against the FerretDB of npm run services', () => {
  it('detects FerretDB and that it has no transactions; the test database is dropped on close', async () => {
    const m = await createTestMongoDatabase();
    const name = m.db.databaseName;
    expect(m.capabilities).toMatchObject({ server: 'ferretdb', transactions: false });
    await m.db.collection('probe').insertOne({ ok: 1 });
    const client = m.client;
    const listed = async () => (await client.db('admin').admin().listDatabases()).databases.map((d) => d.name);
    expect(await listed()).toContain(name);
    await m.close();
    const again = await createTestMongoDatabase();
    try {
      expect((await again.client.db('admin').admin().listDatabases()).databases.map((d) => d.name)).not.toContain(name);
    } finally {
      await again.close();
    }
  });
});
