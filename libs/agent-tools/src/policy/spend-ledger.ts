import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Units } from './decimal';
import { withLedgerLock } from './ledger-lock';

export interface SpendRecord {
  readonly at: Date;
  readonly token: string;
  readonly amount: Units;
  readonly hash: string;
  /**
   * `sending`: written before the transaction leaves, so it counts from the moment it may be sent; `released`: the
   * API or the chain proved it was not applied, and the hash's spending no longer counts. (`submitted` and
   * `uncertain` are earlier files' spellings of a counted spend.)
   */
  readonly status: 'sending' | 'released' | 'submitted' | 'uncertain';
}

/** What the local signer has spent: the daily limit is checked against it. */
export interface SpendLedger {
  /**
   * One at a time across every process on this ledger: `decide` sees the spending since `since` and returns the
   * records to append (or throws to refuse); nobody else can spend between its reading and the append.
   */
  reserve(since: Date, decide: (spent: Map<string, Units>) => readonly SpendRecord[]): void;
  record(entry: SpendRecord): void;
  spentSince(since: Date): Map<string, Units>;
}

const sum = (records: readonly SpendRecord[], since: Date) => {
  const released = new Set(records.filter((r) => r.status === 'released').map((r) => r.hash));
  const out = new Map<string, Units>();
  for (const r of records) if (r.at >= since && !released.has(r.hash)) out.set(r.token, (out.get(r.token) ?? 0n) + r.amount);
  return out;
};

export class InMemorySpendLedger implements SpendLedger {
  private readonly records: SpendRecord[] = [];
  reserve(since: Date, decide: (spent: Map<string, Units>) => readonly SpendRecord[]): void {
    this.records.push(...decide(this.spentSince(since)));
  }
  record(entry: SpendRecord): void {
    this.records.push(entry);
  }
  spentSince(since: Date): Map<string, Units> {
    return sum(this.records, since);
  }
}

/**
 * One JSON line per spend, shared by every MCP process whose state folder holds it: each decision re-reads the
 * file under `<file>.lock` (ledger-lock.ts) and appends before the lock is let go, so two processes on one wallet
 * share one daily limit. Restarting does not reset the day. Lines that cannot be read are a refusal to start (and
 * to sign), never silently skipped.
 */
export class FileSpendLedger implements SpendLedger {
  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.read();
  }

  reserve(since: Date, decide: (spent: Map<string, Units>) => readonly SpendRecord[]): void {
    withLedgerLock(`${this.file}.lock`, () => {
      for (const r of decide(sum(this.read(), since))) this.append(r);
    });
  }

  record(entry: SpendRecord): void {
    withLedgerLock(`${this.file}.lock`, () => this.append(entry));
  }

  spentSince(since: Date): Map<string, Units> {
    return sum(this.read(), since);
  }

  /**
   * Appends one record and waits until it is on disk (fsync) before the caller signs: a reservation only in the page
   * cache is lost with the power, and the transaction it covered may be on chain — the limit would then not hold.
   */
  private append(entry: SpendRecord): void {
    const created = !existsSync(this.file);
    const fd = openSync(this.file, 'a', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ ...entry, at: entry.at.toISOString(), amount: entry.amount.toString() })}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (created) syncDirectory(dirname(this.file)); // the new file's name, too, must survive
  }

  private read(): SpendRecord[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line, i) => parseLine(line, `${this.file}:${i + 1}`));
  }
}

const STATUSES = new Set<SpendRecord['status']>(['sending', 'released', 'submitted', 'uncertain']);

function parseLine(line: string, where: string): SpendRecord {
  try {
    const r = JSON.parse(line) as { at: string; token: string; amount: string; hash: string; status: SpendRecord['status'] };
    const at = new Date(r.at);
    if (Number.isNaN(at.getTime()) || typeof r.token !== 'string' || !STATUSES.has(r.status)) throw new Error('bad fields');
    return { at, token: r.token, amount: BigInt(r.amount), hash: String(r.hash), status: r.status };
  } catch (e) {
    throw new Error(`spend ledger ${where} is unreadable (${(e as Error).message}); fix or move the file`);
  }
}

/** fsync of a directory: makes a file just created in it durable under its name. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
