import type { RecordedEvent } from '@dob/event-store';
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
  /** Called for each event before its writes, e.g. to SIGKILL the process mid-batch. */
  readonly beforeApply?: (event: RecordedEvent) => void;
}

interface Balance {
  [field: string]: string | bigint | number;
  account: string;
  balance: bigint;
  credits: number;
}

/**
 * Balances add every credit (applying one twice would show), and `applied` counts how often each event was
 * applied: exactly-once means every count is 1 and the balances equal a clean build's.
 */
export function ledgerProjection(options: LedgerOptions = {}): ProjectionDefinition {
  return {
    name: options.name ?? 'ledger',
    version: options.version ?? 1,
    eventTypes: [CREDITED],
    collections: {
      balances: { fields: { account: 'text', balance: 'amount', credits: 'int' }, key: ['account'] },
      applied: { fields: { event_id: 'text', times: 'int' }, key: ['event_id'] },
    },
    async apply(state, e) {
      options.beforeApply?.(e);
      const d = e.data as Credited;
      if (d.poison) throw new Error(`cannot apply poison credit ${e.id}`);
      const applied = await state.get<{ event_id: string; times: number }>('applied', { event_id: e.id });
      state.put('applied', { event_id: e.id, times: (applied?.times ?? 0) + 1 });
      const b = await state.get<Balance>('balances', { account: d.account });
      state.put('balances', { account: d.account, balance: (b?.balance ?? 0n) + BigInt(d.amount), credits: (b?.credits ?? 0) + 1 });
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
