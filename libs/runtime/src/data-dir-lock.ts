import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite has no lock of its own: two processes opening one data folder corrupt it. The first process writes
 * `<dataDir>/LOCK` (exclusive create); a second one finds a live pid there and refuses to start. A LOCK left by a
 * process that died (kill -9) is detected by its dead pid and taken over.
 */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

interface LockContent {
  pid: number;
  startedAt: string;
}

export function lockFilePath(dataDir: string): string {
  return join(dataDir, 'LOCK');
}

export function readLock(dataDir: string): LockContent | undefined {
  try {
    return JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as LockContent;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = lockFilePath(dataDir);
  const content: LockContent = { pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(content), { flag: 'wx' });
      let released = false;
      return {
        path,
        release: () => {
          if (released) return;
          released = true;
          if (readLock(dataDir)?.pid === process.pid) rmSync(path, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = readLock(dataDir);
      // Our own pid counts too: a second system in this process would corrupt the folder just the same.
      if (holder && isProcessAlive(holder.pid)) {
        throw new DataDirLockedError(
          `data folder ${dataDir} is in use by process ${holder.pid} (started ${holder.startedAt}); ` +
            `stop it first or set DATA_DIR to another folder`,
        );
      }
      rmSync(path, { force: true }); // stale lock of a dead process
    }
  }
  throw new DataDirLockedError(`could not lock data folder ${dataDir}`);
}
