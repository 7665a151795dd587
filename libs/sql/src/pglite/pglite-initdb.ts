import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { clusterImageFile, defaultImageFolder, isTrustedImage, partialImageFile } from './pglite-cluster-image';

const run = promisify(execFile);

/**
 * The child's script (plain CommonJS: it needs no TypeScript loader, only the package's build). Arguments: PGlite's
 * entry, the folder, the settings, an image to load ('' = none) and where to write a new image ('' = do not):
 * without an image to load it makes one from a fresh in-memory cluster (initdb) when asked, and loads that, so the
 * folder holds exactly what the next folders will be loaded from; with neither, PGlite runs initdb in the folder.
 */
const CHILD = `
const { PGlite } = require(process.argv[1]);
const { readFileSync, writeFileSync } = require('node:fs');
const [dataDir, conf, imageIn, imageOut] = process.argv.slice(2);
const postgresqlconf = JSON.parse(conf);
(async () => {
  let image;
  if (imageIn) image = new Blob([readFileSync(imageIn)]);
  else if (imageOut) {
    const fresh = await PGlite.create({ postgresqlconf });
    image = await fresh.dumpDataDir('none');
    await fresh.close();
    writeFileSync(imageOut, Buffer.from(await image.arrayBuffer()), { mode: 0o600 });
  }
  const db = await PGlite.create({ dataDir, postgresqlconf, ...(image ? { loadDataDir: image } : {}) });
  await db.close();
})().catch((e) => { console.error((e && e.stack) || e); process.exit(1); });`;

/**
 * Creates a new PGlite data folder in a short-lived child process, so the process that then opens it never holds
 * initdb's memory. PGlite 0.5 runs initdb as a second WebAssembly instance whose linear memory (≈ 500 MiB resident on
 * a new folder, `bench/pglite-memory.bench.ts`) stays in the opening process for its whole life; reopening an
 * existing folder skips initdb. The child loads the cluster image (pglite-cluster-image.ts) when this user has one,
 * and makes it when not. The folder is filled beside its place and renamed into it, so a start killed half-way
 * leaves no half-made cluster for the next start to open. A folder that already holds a cluster (PG_VERSION) is
 * left alone.
 */
export async function initPgliteDataDir(dataDir: string, postgresqlconf: readonly string[], imageFolder = defaultImageFolder()): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const building = join(dirname(dataDir), `.${basename(dataDir)}.new-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dirname(dataDir), { recursive: true });
    // Only an empty folder can be renamed over: one holding something else gets initdb in place, as before.
    if ((await readdir(dataDir).catch(() => [])).length > 0) return await child(dataDir, postgresqlconf, '', '');
    await fillFolder(building, postgresqlconf, imageFolder);
    await rename(building, dataDir).catch((e: unknown) => {
      if (!existsSync(join(dataDir, 'PG_VERSION'))) throw e; // else another start made it meanwhile: theirs is used
    });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`creating the embedded database in ${dataDir} failed: ${err.stderr?.trim() || err.message}`, { cause: e });
  } finally {
    await rm(building, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Fills a folder of our own (removed and made again when loading the image failed). */
async function fillFolder(folder: string, postgresqlconf: readonly string[], imageFolder: string): Promise<void> {
  const image = clusterImageFile(postgresqlconf, imageFolder);
  if (image && isTrustedImage(image)) {
    try {
      return await child(folder, postgresqlconf, image, '');
    } catch {
      await rm(image, { force: true }); // a damaged image: made again below
      await rm(folder, { recursive: true, force: true });
    }
  }
  const made = image ? partialImageFile(image) : '';
  try {
    await child(folder, postgresqlconf, '', made);
    if (image) await rename(made, image).catch(() => undefined); // only a cache
  } finally {
    if (made) await rm(made, { force: true });
  }
}

async function child(folder: string, postgresqlconf: readonly string[], imageIn: string, imageOut: string): Promise<void> {
  // execArgv is not passed on: the child needs no TypeScript loader.
  await run(process.execPath, ['-e', CHILD, require.resolve('@electric-sql/pglite'), folder, JSON.stringify(postgresqlconf), imageIn, imageOut], {
    timeout: 300_000,
    maxBuffer: 1 << 20,
  });
}
