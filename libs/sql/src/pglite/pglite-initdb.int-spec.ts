import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgliteDatabase, EMBEDDED_POSTGRESQL_CONF } from './pglite-database';
import { initPgliteDataDir } from './pglite-initdb';

describe('embedded PGlite on a data folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'pglite-initdb-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates a new folder in a child process, then opens and reopens it with the embedded settings', async () => {
    const dir = join(root, 'new');
    const db = await createPgliteDatabase({ dataDir: dir, schema: 'app' });
    try {
      expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
      expect(readFileSync(join(dir, 'postgresql.conf'), 'utf8')).toContain('shared_buffers = 16MB');
      expect((await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows).toEqual([{ shared_buffers: '16MB' }]);
      await db.exec('CREATE TABLE kept (v int); INSERT INTO kept VALUES (7);');
    } finally {
      await db.close();
    }
    const again = await createPgliteDatabase({ dataDir: dir, schema: 'app' });
    try {
      expect((await again.query('SELECT v FROM kept')).rows).toEqual([{ v: 7 }]);
    } finally {
      await again.close();
    }
  });

  it('leaves an existing cluster alone and names the folder when initdb cannot run', async () => {
    const existing = join(root, 'existing');
    await initPgliteDataDir(existing, EMBEDDED_POSTGRESQL_CONF);
    // A child that ran again would rewrite postgresql.conf with the settings it was given (PGlite writes it on open).
    await initPgliteDataDir(existing, ['shared_buffers = 24MB']);
    expect(readFileSync(join(existing, 'postgresql.conf'), 'utf8')).toContain('shared_buffers = 16MB');

    const blocked = join(root, 'a-file');
    writeFileSync(blocked, 'not a folder');
    await expect(initPgliteDataDir(join(blocked, 'pglite'), EMBEDDED_POSTGRESQL_CONF)).rejects.toThrow(
      /creating the embedded database in .*a-file\/pglite failed/,
    );
  });
});
