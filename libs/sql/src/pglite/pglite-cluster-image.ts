import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, statSync, type Stats } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * New PGlite clusters, in memory or on a data folder, start from the files of a just-initialised cluster instead of
 * running initdb each time. initdb is most of what creating a PGlite costs (a second WebAssembly instance,
 * pglite-initdb.ts); PGlite.create's `loadDataDir` takes a tarball of a data folder, which `dumpDataDir` writes
 * (https://pglite.dev/docs/api). Tests create one in-memory database per case, in a new process per test file, and
 * every started system a data folder, so the image is kept in memory for the process and as a file for the next
 * processes, named after the PGlite build and the settings (another version or another postgresql.conf never loads
 * it). Measured in docs/operations.md ("The suite's time"): about 3x faster per in-memory database, and a new data
 * folder 4.2–5.4 → 1.4–1.7 s of CPU (user + system, three runs each).
 *
 * A cluster loaded from the file becomes a database the system trusts with its data, so the file is kept where only
 * its owner can write (~/.cache/dob-pglite by default, 0700, checked on every use), never in the shared temporary folder;
 * where no such folder can be had, clusters are initialised as before.
 */
let memoized: Promise<Blob | undefined> | undefined;
/** The in-memory image's file, found once (the settings are the embedded ones throughout a process). */
let imageFile: { readonly path: string | undefined } | undefined;

type Open = (where: { loadDataDir?: Blob }) => Promise<PGlite>;

/** A new in-memory cluster, as initdb would leave it. */
export async function newInMemoryPglite(open: Open, postgresqlconf: readonly string[]): Promise<PGlite> {
  // Found once per process: a database per test case must not stat and hash its way to the same file each time.
  const file = () => (imageFile ??= { path: clusterImageFile(postgresqlconf) }).path;
  memoized ??= (async () => {
    const path = file();
    const bytes = path ? await readTrustedImage(path) : undefined;
    return bytes ? new Blob([bytes]) : undefined;
  })();
  const image = await memoized;
  if (image) {
    try {
      return await open({ loadDataDir: image });
    } catch {
      memoized = undefined; // a damaged file: made again below
      const path = file();
      if (path) await rm(path, { force: true });
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
    const path = file();
    if (blob && path) await keepClusterImage(path, Buffer.from(await blob.arrayBuffer()));
  }
  return db;
}

/** This user's, and nobody else may write it (no uid to compare where the platform has none). */
const ownerOnly = (st: Stats): boolean => (typeof process.getuid !== 'function' || st.uid === process.getuid()) && (st.mode & 0o022) === 0;

/** Where this user's images are kept. */
export const defaultImageFolder = (): string => join(homedir(), '.cache', 'dob-pglite');

/** The folder, created 0700; undefined unless it is a folder only this user can write. */
function privateFolder(folder: string): string | undefined {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const st = lstatSync(folder);
    return st.isDirectory() && ownerOnly(st) ? folder : undefined;
  } catch {
    return undefined; // a read-only or missing home: no image, initdb each time
  }
}

/** Where the image of a cluster with these settings is kept; undefined where no private folder can be had. */
export function clusterImageFile(postgresqlconf: readonly string[], imageFolder = defaultImageFolder()): string | undefined {
  const folder = privateFolder(imageFolder);
  if (!folder) return undefined;
  const build = require.resolve('@electric-sql/pglite');
  const { size, mtimeMs } = statSync(build);
  const key = createHash('sha256')
    .update(JSON.stringify([build, size, mtimeMs, postgresqlconf]))
    .digest('hex')
    .slice(0, 16);
  return join(folder, `cluster-${key}.tar`);
}

/** Whether the image is a regular file of this user's that nobody else can write (what may be loaded). */
export function isTrustedImage(file: string): boolean {
  try {
    const st = lstatSync(file);
    return st.isFile() && ownerOnly(st);
  } catch {
    return false;
  }
}

async function readTrustedImage(file: string): Promise<Buffer | undefined> {
  return isTrustedImage(file) ? readFile(file).catch(() => undefined) : undefined;
}

/** A name beside the image for writing it before it is renamed into place. */
export const partialImageFile = (file: string): string => `${file}.${randomBytes(6).toString('hex')}`;

/** Written beside and renamed into place (0600), so a concurrent reader sees the whole file or none. */
async function keepClusterImage(file: string, bytes: Buffer): Promise<void> {
  const partial = partialImageFile(file);
  try {
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file);
  } catch {
    await rm(partial, { force: true }); // only a cache: the next process makes its own
  }
}
