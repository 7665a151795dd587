import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * PGlite has no lock of its own: two processes opening one data folder corrupt it. The first process writes
 * `<dataDir>/LOCK` (exclusive create); a second one finds a live holder there and refuses to start.
 *
 * A pid alone cannot tell a live holder from a dead one: in a container the restarted process usually gets the
 * same pid (often 1) as the one a kill -9 or OOM kill left in the LOCK, and it would refuse itself forever. So the
 * LOCK records who holds it beyond the pid — the kernel's boot id and the process's start time (field 22 of
 * /proc/<pid>/stat, clock ticks since boot) — and the holder touches the file every few seconds:
 * - same host, same boot: held only while that pid runs AND started at the recorded time (a reused pid is not it);
 * - same host, other boot: the machine restarted since, stale;
 * - another host name (another container sharing the volume, whose processes we cannot see): held while its
 *   heartbeat is fresh.
 * Where /proc is missing (macOS, Windows) the pid check stands alone. `npm run ops -- data-dir unlock --force`
 * removes a LOCK an operator knows to be stale.
 */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

export interface LockHolder {
  readonly pid: number;
  readonly startedAt: string;
  /** Process start time in clock ticks since boot (Linux), absent elsewhere. */
  readonly startTicks?: string;
  /** /proc/sys/kernel/random/boot_id (Linux), absent elsewhere. */
  readonly bootId?: string;
  readonly hostname?: string;
}

/** How often the holder touches LOCK, and how old a foreign host's heartbeat may be before the LOCK is stale. */
export const LOCK_HEARTBEAT_MS = 5_000;
export const LOCK_STALE_AFTER_MS = 30_000;

export function lockFilePath(dataDir: string): string {
  return join(dataDir, 'LOCK');
}

export function readLock(dataDir: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(lockFilePath(dataDir), 'utf8')) as LockHolder;
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

/** Field 22 (starttime) of /proc/<pid>/stat; the command name (field 2) may hold spaces, so split after its ')'. */
export function processStartTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

export function currentHolder(): LockHolder {
  return {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    startTicks: processStartTicks(process.pid),
    bootId: bootId(),
    hostname: hostname(),
  };
}

export type LockVerdict = { readonly held: true; readonly why: string } | { readonly held: false; readonly why: string };

/** Whether the recorded holder still runs, as far as this process can tell. */
export function judgeLock(holder: LockHolder, lockAgeMs: number, me: LockHolder = currentHolder()): LockVerdict {
  if (holder.hostname !== undefined && me.hostname !== undefined && holder.hostname !== me.hostname) {
    return lockAgeMs < LOCK_STALE_AFTER_MS
      ? { held: true, why: `held by process ${holder.pid} on host ${holder.hostname} (heartbeat ${Math.round(lockAgeMs / 1000)} s ago)` }
      : { held: false, why: `host ${holder.hostname} stopped its heartbeat ${Math.round(lockAgeMs / 1000)} s ago` };
  }
  if (holder.bootId && me.bootId && holder.bootId !== me.bootId) return { held: false, why: 'written before the machine restarted' };
  if (!isProcessAlive(holder.pid)) return { held: false, why: `process ${holder.pid} is gone` };
  // A LOCK from before start times were recorded naming our own pid: this process never writes that format, so
  // it is a previous incarnation's (the container-restart case).
  if (holder.startTicks === undefined && holder.pid === me.pid && me.startTicks !== undefined) {
    return { held: false, why: `pid ${holder.pid} is this process now (a restart reused it)` };
  }
  if (holder.startTicks !== undefined) {
    const running = processStartTicks(holder.pid);
    if (running !== undefined && running !== holder.startTicks) {
      return { held: false, why: `pid ${holder.pid} now belongs to a later process (a restart reused it)` };
    }
  }
  // Our own pid counts too: a second system in this process would corrupt the folder just the same.
  return { held: true, why: `in use by process ${holder.pid} (started ${holder.startedAt})` };
}

/** The LOCK's holder and verdict, or undefined when there is no LOCK (ops `data-dir status`). */
export function inspectDataDirLock(dataDir: string): { holder: LockHolder; verdict: LockVerdict } | undefined {
  const holder = readLock(dataDir);
  if (!holder) return undefined;
  return { holder, verdict: judgeLock(holder, lockAgeMs(lockFilePath(dataDir))) };
}

function lockAgeMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = lockFilePath(dataDir);
  const me = currentHolder();
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(me), { flag: 'wx' });
      return holdLock(dataDir, path, me);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = readLock(dataDir);
      const verdict = holder ? judgeLock(holder, lockAgeMs(path), me) : undefined;
      if (verdict?.held) {
        throw new DataDirLockedError(
          `data folder ${dataDir} is ${verdict.why}; stop it first or set DATA_DIR to another folder ` +
            `(if you know it is stale: npm run ops -- data-dir unlock --force)`,
        );
      }
      rmSync(path, { force: true }); // stale: its holder is gone
    }
  }
  throw new DataDirLockedError(`could not lock data folder ${dataDir}`);
}

function holdLock(dataDir: string, path: string, me: LockHolder): DataDirLock {
  const isMine = () => {
    const h = readLock(dataDir);
    return h?.pid === me.pid && h.startTicks === me.startTicks && h.startedAt === me.startedAt;
  };
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // Removed by an operator's forced unlock: nothing to refresh.
    }
  }, LOCK_HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      if (isMine()) rmSync(path, { force: true });
    },
  };
}

/** Removes a LOCK: refuses while its holder looks alive unless forced (ops `data-dir unlock`). */
export function removeDataDirLock(dataDir: string, force: boolean): LockVerdict | undefined {
  const found = inspectDataDirLock(dataDir);
  if (!found) return undefined;
  if (found.verdict.held && !force) {
    throw new DataDirLockedError(`data folder ${dataDir} is ${found.verdict.why}; not removed (add --force if you know it is stale)`);
  }
  rmSync(lockFilePath(dataDir), { force: true });
  return found.verdict;
}
