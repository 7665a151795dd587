import { createHash, randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * In-memory PGlite databases start from the files of a just-initialised cluster instead of running initdb each time.
 * initdb is most of what creating a PGlite costs (a second WebAssembly instance, pglite-initdb.ts); PGlite.create's
 * `loadDataDir` takes a tarball of a data folder, which `dumpDataDir` writes (https://pglite.dev/docs/api). Tests
 * create one in-memory database per case, in a new process per test file, so the image is kept in memory for the
 * process and as a file in the temporary folder for the next processes, named after the PGlite build and the
 * settings (another version or another postgresql.conf never loads it). Measured in docs/operations.md ("The
 * suite's time"): about 3x faster per database.
 */
let memoized: Promise<Blob | undefined> | undefined;

type Open = (where: { loadDataDir?: Blob }) => Promise<PGlite>;

/** A new in-memory cluster, as initdb would leave it. */
export async function newInMemoryPglite(open: Open, postgresqlconf: readonly string[]): Promise<PGlite> {
  const file = imageFile(postgresqlconf);
  memoized ??= readFile(file).then(
    (bytes) => new Blob([bytes]),
    () => undefined,
  );
  const image = await memoized;
  if (image) {
    try {
      return await open({ loadDataDir: image });
    } catch {
      memoized = undefined; // a damaged file: made again below
      await rm(file, { force: true });
    }
  }
  const db = await open({});
  if (!(await memoized)) {
    // Dumped before the database runs anything, so the image is exactly initdb's output.
    const dumped = db.dumpDataDir('none').then(
      (blob) => blob,
      () => undefined,
    );
    memoized = dumped;
    const blob = await dumped;
    if (blob) await keep(file, blob);
  }
  return db;
}

function imageFile(postgresqlconf: readonly string[]): string {
  const build = require.resolve('@electric-sql/pglite');
  const { size, mtimeMs } = statSync(build);
  const key = createHash('sha256')
    .update(JSON.stringify([build, size, mtimeMs, postgresqlconf]))
    .digest('hex')
    .slice(0, 16);
  return join(tmpdir(), `dob-pglite-cluster-${key}.tar`);
}

/** Written beside and renamed into place, so a concurrent reader sees the whole file or none. */
async function keep(file: string, blob: Blob): Promise<void> {
  const partial = `${file}.${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(partial, Buffer.from(await blob.arrayBuffer()));
    await rename(partial, file);
  } catch {
    await rm(partial, { force: true }); // only a cache: the next process makes its own
  }
}
