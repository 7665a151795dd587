import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Units } from './decimal';

export interface SpendRecord {
  readonly at: Date;
  readonly token: string;
  readonly amount: Units;
  readonly hash: string;
  /** `submitted`: the API confirmed it; `uncertain`: the outcome is unknown (counted, to be safe). */
  readonly status: 'submitted' | 'uncertain';
}

/** What the local signer has spent: the daily limit is checked against it. */
export interface SpendLedger {
  record(entry: SpendRecord): void;
  spentSince(since: Date): Map<string, Units>;
}

const sum = (records: readonly SpendRecord[], since: Date) => {
  const out = new Map<string, Units>();
  for (const r of records) if (r.at >= since) out.set(r.token, (out.get(r.token) ?? 0n) + r.amount);
  return out;
};

export class InMemorySpendLedger implements SpendLedger {
  private readonly records: SpendRecord[] = [];
  record(entry: SpendRecord): void {
    this.records.push(entry);
  }
  spentSince(since: Date): Map<string, Units> {
    return sum(this.records, since);
  }
}

/**
 * One JSON line per spend, appended synchronously before the signer answers: restarting the MCP server does not
 * reset the day's spending. Lines that cannot be read are a refusal to start, never silently skipped.
 */
export class FileSpendLedger implements SpendLedger {
  private readonly records: SpendRecord[];

  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.records = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line, i) => parseLine(line, `${file}:${i + 1}`))
      : [];
  }

  record(entry: SpendRecord): void {
    appendFileSync(this.file, `${JSON.stringify({ ...entry, at: entry.at.toISOString(), amount: entry.amount.toString() })}\n`, { mode: 0o600 });
    this.records.push(entry);
  }

  spentSince(since: Date): Map<string, Units> {
    return sum(this.records, since);
  }
}

function parseLine(line: string, where: string): SpendRecord {
  try {
    const r = JSON.parse(line) as { at: string; token: string; amount: string; hash: string; status: SpendRecord['status'] };
    const at = new Date(r.at);
    if (Number.isNaN(at.getTime()) || typeof r.token !== 'string') throw new Error('bad fields');
    return { at, token: r.token, amount: BigInt(r.amount), hash: String(r.hash), status: r.status };
  } catch (e) {
    throw new Error(`spend ledger ${where} is unreadable (${(e as Error).message}); fix or move the file`);
  }
}
