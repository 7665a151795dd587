import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Creates a new PGlite data folder (initdb) in a short-lived child process, so the process that then opens it never
 * holds initdb's memory. PGlite 0.5 runs initdb as a second WebAssembly instance whose linear memory (≈ 500 MiB
 * resident on a new folder, `bench/pglite-memory.bench.ts`) stays in the opening process for its whole life; reopening
 * an existing folder skips initdb. A folder that already holds a cluster (PG_VERSION) is left alone.
 */
export async function initPgliteDataDir(dataDir: string, postgresqlconf: readonly string[]): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const script = `require(process.argv[1]).PGlite.create({ dataDir: process.argv[2], postgresqlconf: JSON.parse(process.argv[3]) })
  .then((db) => db.close()).catch((e) => { console.error(e && e.stack || e); process.exit(1); });`;
  try {
    // execArgv is not passed on: the child needs no TypeScript loader, only the package's CommonJS build.
    await run(process.execPath, ['-e', script, require.resolve('@electric-sql/pglite'), dataDir, JSON.stringify(postgresqlconf)], {
      timeout: 300_000,
      maxBuffer: 1 << 20,
    });
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`creating the embedded database in ${dataDir} failed: ${err.stderr?.trim() || err.message}`, { cause: e });
  }
}
