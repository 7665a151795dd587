import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { DataDirLockedError, acquireDataDirLock, lockFilePath, readLock } from './data-dir-lock';

const freshDir = () => mkdtempSync(join(tmpdir(), 'lock-'));

describe('data dir lock', () => {
  it('writes the pid and removes the file on release', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(readLock(dir)?.pid).toBe(process.pid);
    lock.release();
    expect(readLock(dir)).toBeUndefined();
  });

  it('refuses a folder held by a live process', () => {
    const dir = freshDir();
    // The parent of this test process is alive for the whole test.
    writeFileSync(lockFilePath(dir), JSON.stringify({ pid: process.ppid, startedAt: 'x' }));
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir)).toThrow(/in use by process/);
  });

  it('refuses a second lock in the same process', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    lock.release();
  });

  it('takes over the lock of a dead process', () => {
    const dir = freshDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeFileSync(lockFilePath(dir), JSON.stringify({ pid: dead, startedAt: 'x' }));
    const lock = acquireDataDirLock(dir);
    expect(readLock(dir)?.pid).toBe(process.pid);
    lock.release();
  });
});
