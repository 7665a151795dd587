import { derivedEventId, poolStreamId } from '@dob/domain';
import type { NewEvent } from '@dob/event-store';

/** Valid chain-shaped domain events for notifier tests and the benchmark (they pass the domain catalog). */
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function strkey(prefix: 'C' | 'G', n: number): string {
  let s = '';
  let v = n;
  do {
    s = B32[v % 32] + s;
    v = Math.floor(v / 32);
  } while (v > 0);
  return prefix + s.padStart(55, 'A');
}
export const sampleContract = (n: number): string => strkey('C', n);
export const sampleAccount = (n: number): string => strkey('G', n);

const chain = (pool: string, n: number, closedAt = new Date().toISOString()) => ({
  network_id: 9,
  contract_id: pool,
  tx_hash: n.toString(16).padStart(64, '0'),
  ledger: 1000 + n,
  event_id: `${String(1000 + n).padStart(19, '0')}-0000000001`,
  closed_at: closedAt,
});

export interface SampleAppend {
  readonly streamId: string;
  readonly event: NewEvent;
}

export function samplePoolRegistered(poolNo: number): SampleAppend {
  const pool = sampleContract(poolNo);
  return {
    streamId: poolStreamId(9, pool),
    event: {
      id: derivedEventId('test-registered', poolNo),
      type: 'PoolRegistered',
      version: 1,
      data: {
        network_id: 9,
        pool,
        name: `Pool ${poolNo}`,
        ticker: `P${poolNo}`,
        access_type: 'p',
        distribution_type: 'tr',
        estimated_apr: '8.5',
        max_participants: 100,
        token_to_distribute: 'USDC',
        registered_at: new Date().toISOString(),
      },
    },
  };
}

export function samplePoolInitialized(poolNo: number): SampleAppend {
  const pool = sampleContract(poolNo);
  return {
    streamId: poolStreamId(9, pool),
    event: {
      id: derivedEventId('test-init', poolNo),
      type: 'PoolInitialized',
      version: 1,
      data: {
        chain: chain(pool, poolNo),
        pool_version: '2',
        contract_version: '2',
        admin: sampleAccount(poolNo),
        shares_len: 1,
        mutable: true,
        participation_token: null,
        pool_type: 'reward',
        pool_type_code: 0,
      },
    },
  };
}

/** A direct share transfer (webhook shares_transferred); `n` makes it unique. */
export function sampleSharesTransferred(poolNo: number, n: number): SampleAppend {
  const pool = sampleContract(poolNo);
  return {
    streamId: poolStreamId(9, pool),
    event: {
      id: derivedEventId('test-transfer', poolNo, n),
      type: 'SharesTransferred',
      version: 1,
      data: {
        chain: chain(pool, n),
        pool,
        from: sampleAccount(1),
        to: sampleAccount(2),
        shares: String(1 + (n % 100)),
        reason: 'direct',
      },
    },
  };
}

export function sampleListingCreated(poolNo: number, seller: number, n: number): SampleAppend {
  const pool = sampleContract(poolNo);
  return {
    streamId: poolStreamId(9, pool),
    event: {
      id: derivedEventId('test-listed', poolNo, seller, n),
      type: 'ListingCreated',
      version: 1,
      data: {
        chain: chain(pool, n),
        pool,
        seller: sampleAccount(seller),
        shares_amount: '40',
        price_per_share: '25000000',
        payment_token: sampleContract(999),
      },
    },
  };
}

export function sampleListingSold(poolNo: number, seller: number, buyer: number, n: number): SampleAppend {
  const pool = sampleContract(poolNo);
  return {
    streamId: poolStreamId(9, pool),
    event: {
      id: derivedEventId('test-sold', poolNo, seller, n),
      type: 'ListingSold',
      version: 1,
      data: {
        chain: chain(pool, n),
        pool,
        seller: sampleAccount(seller),
        buyer: sampleAccount(buyer),
        shares_sold: '10',
        total_price: '250000000',
        price_per_share: '25000000',
        payment_token: sampleContract(999),
        shares_remaining: '30',
      },
    },
  };
}
