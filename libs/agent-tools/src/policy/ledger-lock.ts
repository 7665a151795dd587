import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** The lock is held for a read, a decision and an append (milliseconds): one older than this has a dead or hung holder. */
const STALE_AFTER_MS = 5_000;
/** Every wait has a timeout: past it the signer refuses rather than waiting on a lock forever. */
const WAIT_TIMEOUT_MS = 10_000;

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function readHolder(path: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Holder;
  } catch {
    return undefined; // gone, or half-written by its creator: judged by its age alone
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A lock whose holder process is gone (same host) or that is older than any holder keeps it is removed. */
function removeIfStale(path: string): void {
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch {
    return; // released meanwhile
  }
  const holder = readHolder(path);
  const dead = holder !== undefined && holder.host === hostname() && !isAlive(holder.pid);
  if (!dead && ageMs < STALE_AFTER_MS) return;
  // Moved aside, then checked: if another process replaced the stale lock in between, its live lock goes back.
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readHolder(aside);
  if (moved?.token !== holder?.token) {
    try {
      linkSync(aside, path);
    } catch {
      // a third process already holds a new lock: the one moved aside was not the stale one and is not restorable
    }
  }
  unlinkSync(aside);
}

/**
 * Runs `critical` while holding `<path>`, an exclusive-create lock file (open O_CREAT|O_EXCL: exactly one process
 * creates it; POSIX open(2)), shared by every process on the folder. Synchronous on purpose: the section is a
 * read, a decision and an append, never an await, so a holder cannot park it on the network. A holder that died
 * leaves a lock naming its pid, removed by the next process; a hung one is timed out by age.
 */
export function withLedgerLock<T>(path: string, critical: () => T): T {
  const me: Holder = { pid: process.pid, host: hostname(), token: randomUUID() };
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  for (;;) {
    try {
      writeFileSync(path, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    removeIfStale(path);
    if (Date.now() > deadline) throw new Error(`the spend ledger lock ${path} stayed taken for ${WAIT_TIMEOUT_MS / 1000} s; refusing to sign without it`);
    sleep(2 + Math.random() * 8);
  }
  try {
    return critical();
  } finally {
    if (readHolder(path)?.token === me.token) unlinkSync(path);
  }
}
