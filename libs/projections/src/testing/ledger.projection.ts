import type { RecordedEvent } from '@dob/event-store';
import type { SqlExecutor } from '@dob/sql';
import type { ProjectionDefinition } from '../projection';

/** Test-only projection: per-account balances (non-idempotent sums) plus a per-event application counter. */
export const CREDITED = 'test.credited';

export interface Credited {
  readonly account: string;
  /** bigint as a decimal string */
  readonly amount: string;
  readonly poison?: boolean;
}

export interface LedgerOptions {
  readonly name?: string;
  readonly version?: number;
  /** Called before each batch's writes, e.g. to SIGKILL the process mid-batch. */
  readonly beforeApply?: (events: readonly RecordedEvent[]) => void;
  /** Called between the batch's two writes. */
  readonly midApply?: (events: readonly RecordedEvent[]) => void;
}

export function ledgerProjection(options: LedgerOptions = {}): ProjectionDefinition<SqlExecutor> {
  return {
    name: options.name ?? 'ledger',
    version: options.version ?? 1,
    eventTypes: [CREDITED],
    tables: ['balances', 'applied'],
    async setup(tx, t) {
      await tx.exec(`
        CREATE TABLE ${t.balances} (account text PRIMARY KEY, balance numeric NOT NULL, credits int NOT NULL);
        CREATE TABLE ${t.applied} (event_id text PRIMARY KEY, times int NOT NULL)`);
    },
    async apply(tx, events, t) {
      options.beforeApply?.(events);
      const sums = new Map<string, { account: string; amount: bigint; credits: number }>();
      for (const e of events) {
        const d = e.data as Credited;
        if (d.poison) throw new Error(`cannot apply poison credit ${e.id}`);
        const s = sums.get(d.account) ?? { account: d.account, amount: 0n, credits: 0 };
        s.amount += BigInt(d.amount);
        s.credits += 1;
        sums.set(d.account, s);
      }
      await tx.query(
        `INSERT INTO ${t.applied} (event_id, times) SELECT id, 1 FROM jsonb_array_elements_text($1::jsonb) AS id
         ON CONFLICT (event_id) DO UPDATE SET times = ${t.applied}.times + 1`,
        [JSON.stringify(events.map((e) => e.id))],
      );
      options.midApply?.(events);
      await tx.query(
        `INSERT INTO ${t.balances} (account, balance, credits)
         SELECT account, amount::numeric, credits FROM jsonb_to_recordset($1::jsonb) AS x(account text, amount text, credits int)
         ON CONFLICT (account) DO UPDATE
           SET balance = ${t.balances}.balance + EXCLUDED.balance, credits = ${t.balances}.credits + EXCLUDED.credits`,
        [JSON.stringify([...sums.values()].map((s) => ({ ...s, amount: s.amount.toString() })))],
      );
    },
  };
}

export function credit(i: number, extra: Partial<Credited> = {}): { id: string; type: string; version: number; data: Credited } {
  const hex = i.toString(16).padStart(12, '0');
  return {
    id: `00000000-0000-4000-8000-${hex}`,
    type: CREDITED,
    version: 1,
    data: { account: `acct_${i % 7}`, amount: String(1000n + BigInt(i)), ...extra },
  };
}
