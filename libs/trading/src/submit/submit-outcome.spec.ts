import { Keypair, StrKey } from '@stellar/stellar-sdk';
import type { PreparedTransaction } from '../ports/prepared-transactions.port';
import { sharesReturned, submitResponse, type DecodedEvent } from './submit-outcome';

const contract = (n: number) => StrKey.encodeContract(Buffer.alloc(32, n));
const POOL = contract(1);
const PT = contract(2);
const seller = Keypair.random().publicKey();

const cancelRow = (sharesAtPrepare: string): PreparedTransaction => ({
  hash: 'ab'.repeat(32),
  kind: 'cancel',
  networkId: 9,
  wallet: seller,
  keyId: 'ak_1',
  xdr: '',
  expiresAt: new Date(),
  state: 'submitting',
  outcome: null,
  createdAt: new Date(),
  context: { listing_id: 'SALE_x', pool: POOL, pool_version: '2', shares_returned: sharesAtPrepare },
});
const canceled: DecodedEvent = { contractId: POOL, name: 'canceled', topics: [seller], data: true };
const escrowBack = (amount: bigint): DecodedEvent => ({ contractId: PT, name: 'transfer', topics: [POOL, seller], data: amount });

describe('cancel outcome: shares_returned', () => {
  it('V2: the escrow the participation token gave back, even when a sale landed after prepare', () => {
    const r = submitResponse(cancelRow('600'), 'ab'.repeat(32), [escrowBack(500n), canceled], 'https://x/tx/ab');
    expect(r.shares_returned).toBe(500);
    expect(r.listing_id).toBe('SALE_x');
  });

  it('V1 (no escrow, `canceled` carries no amount): the figure read from get_listing at prepare', () => {
    expect(submitResponse(cancelRow('600'), 'ab'.repeat(32), [canceled], 'https://x/tx/ab').shares_returned).toBe(600);
  });

  it("ignores transfers that are not the escrow return: the splitter's own share transfer, other recipients, other senders", () => {
    const other = Keypair.random().publicKey();
    expect(sharesReturned([{ contractId: POOL, name: 'transfer', topics: [POOL, seller], data: 7n }], POOL, seller)).toBeNull();
    expect(sharesReturned([{ contractId: PT, name: 'transfer', topics: [POOL, other], data: 7n }], POOL, seller)).toBeNull();
    expect(sharesReturned([{ contractId: PT, name: 'transfer', topics: [other, seller], data: 7n }], POOL, seller)).toBeNull();
    expect(sharesReturned([{ contractId: PT, name: 'transfer', topics: [POOL, seller], data: 7n }], POOL, seller)).toBe(7n);
  });
});
