import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  DataDirLockedError,
  LOCK_STALE_AFTER_MS,
  acquireDataDirLock,
  currentHolder,
  lockFilePath,
  processStartTicks,
  readLock,
  removeDataDirLock,
} from './data-dir-lock';

const freshDir = () => mkdtempSync(join(tmpdir(), 'lock-'));
const writeLock = (dir: string, content: object) => writeFileSync(lockFilePath(dir), JSON.stringify(content));

describe('data dir lock', () => {
  it('writes the holder (pid, start time, boot id, host) and removes the file on release', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(readLock(dir)).toMatchObject({ pid: process.pid, startTicks: processStartTicks(process.pid), hostname: hostname() });
    lock.release();
    expect(readLock(dir)).toBeUndefined();
  });

  it('refuses a folder held by a live process', () => {
    const dir = freshDir();
    // The parent of this test process is alive for the whole test, and started when its /proc entry says.
    writeLock(dir, { ...currentHolder(), pid: process.ppid, startTicks: processStartTicks(process.ppid) });
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir)).toThrow(/in use by process/);
  });

  it('refuses an old-format LOCK (pid only) of another live process', () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.ppid, startedAt: 'x' });
    expect(() => acquireDataDirLock(dir)).toThrow(DataDirLockedError);
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
    writeLock(dir, { pid: dead, startedAt: 'x' });
    const lock = acquireDataDirLock(dir);
    expect(readLock(dir)?.pid).toBe(process.pid);
    lock.release();
  });

  it('starts when the stale LOCK names its own pid (a restarted container gets the same pid)', () => {
    const dir = freshDir();
    // A previous incarnation with this very pid, killed -9: same host and boot, an earlier start time.
    writeLock(dir, { ...currentHolder(), startTicks: '1' });
    const lock = acquireDataDirLock(dir);
    expect(readLock(dir)?.startTicks).toBe(processStartTicks(process.pid));
    lock.release();
  });

  it('starts when an old-format LOCK names its own pid', () => {
    const dir = freshDir();
    writeLock(dir, { pid: process.pid, startedAt: 'x' });
    acquireDataDirLock(dir).release();
  });

  it('takes over a LOCK written before the machine restarted', () => {
    const dir = freshDir();
    writeLock(dir, { ...currentHolder(), pid: process.ppid, startTicks: processStartTicks(process.ppid), bootId: 'another-boot' });
    acquireDataDirLock(dir).release();
  });

  it('trusts another host only while its heartbeat is fresh', () => {
    const dir = freshDir();
    writeLock(dir, { ...currentHolder(), hostname: 'other-container' });
    expect(() => acquireDataDirLock(dir)).toThrow(/on host other-container/);
    const old = new Date(Date.now() - LOCK_STALE_AFTER_MS - 1000);
    utimesSync(lockFilePath(dir), old, old);
    acquireDataDirLock(dir).release();
  });

  it('unlock refuses a live holder unless forced', () => {
    const dir = freshDir();
    const lock = acquireDataDirLock(dir);
    expect(() => removeDataDirLock(dir, false)).toThrow(/--force/);
    expect(removeDataDirLock(dir, true)?.held).toBe(true);
    expect(readLock(dir)).toBeUndefined();
    lock.release();
    expect(removeDataDirLock(dir, false)).toBeUndefined();
  });
});
