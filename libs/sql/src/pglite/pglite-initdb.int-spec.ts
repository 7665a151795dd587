import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPgliteDatabase, EMBEDDED_POSTGRESQL_CONF } from './pglite-database';
import { clusterImageFile } from './pglite-cluster-image';
import { initPgliteDataDir } from './pglite-initdb';

describe('embedded PGlite on a data folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'pglite-initdb-'));
  // An image folder of this file's own: the cases below see where the image comes from and spoil it on purpose.
  const images = join(root, 'images');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A new folder's cluster identity: initdb draws a new one, a folder loaded from the image has the image's. */
  async function newFolderIdentity(name: string): Promise<string> {
    await initPgliteDataDir(join(root, name), EMBEDDED_POSTGRESQL_CONF, images);
    const db = await createPgliteDatabase({ dataDir: join(root, name) });
    try {
      return (await db.query<{ id: string }>('SELECT system_identifier::text AS id FROM pg_control_system()')).rows[0]!.id;
    } finally {
      await db.close();
    }
  }

  it('new folders after the first load the image kept in an owner-only folder; one anybody may write is never loaded', async () => {
    const first = await newFolderIdentity('first');
    const image = clusterImageFile(EMBEDDED_POSTGRESQL_CONF, images)!;
    expect(image.startsWith(images)).toBe(true);
    expect({ file: statSync(image).mode & 0o777, folder: statSync(images).mode & 0o777 }).toEqual({ file: 0o600, folder: 0o700 });
    expect(await newFolderIdentity('second')).toBe(first);
    // Filled beside and renamed into place: nothing half-made is left next to the folders.
    expect(readdirSync(root).sort()).toEqual(['first', 'images', 'second']);

    chmodSync(image, 0o666);
    const third = await newFolderIdentity('third');
    expect(third).not.toBe(first); // initdb, and a new image of its own kept in place of the writable one
    expect(statSync(image).mode & 0o777).toBe(0o600);
    expect(await newFolderIdentity('fourth')).toBe(third);

    writeFileSync(image, 'not a tarball', { mode: 0o600 });
    const fifth = await newFolderIdentity('fifth');
    expect(fifth).not.toBe(third);
    expect(await newFolderIdentity('sixth')).toBe(fifth);
  });

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
