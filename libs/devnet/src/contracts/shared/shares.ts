import type { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../../host/host-errors';
import { addr, asAddress, asI128, asStruct, asVec, field, i128, struct } from '../../host/scval';

/** `ShareDataKey {shareholder: Address, share: i128}` (Map keys sorted: share, shareholder). */
export interface Share {
  readonly shareholder: string;
  readonly share: bigint;
}

export const shareToScVal = (s: Share): xdr.ScVal => struct({ shareholder: addr(s.shareholder), share: i128(s.share) });

export function sharesFromScVal(v: xdr.ScVal | undefined): Share[] {
  return asVec(v).map((item) => {
    const s = asStruct(item);
    return { shareholder: asAddress(field(s, 'shareholder')), share: asI128(field(s, 'share')) };
  });
}

export interface ShareChecks {
  readonly lowShareCount: number;
  readonly negativeShare: number;
  readonly duplicate: number;
  readonly invalidTotal: number;
  /** V1: Σ must equal 10,000; V2: Σ must be > 0 (it becomes total_shares) unless a total is given. */
  readonly total: bigint | 'positive';
}

/** `check_shares`: the cap-table validation shared by init and update_shares (order as in the contracts). */
export function checkShares(shares: readonly Share[], c: ShareChecks): bigint {
  if (shares.length < 1) throw HostError.contract(c.lowShareCount);
  const seen = new Set<string>();
  let sum = 0n;
  for (const s of shares) {
    if (s.share < 0n) throw HostError.contract(c.negativeShare);
    if (seen.has(s.shareholder)) throw HostError.contract(c.duplicate);
    seen.add(s.shareholder);
    sum += s.share;
  }
  if (c.total === 'positive' ? sum <= 0n : sum !== c.total) throw HostError.contract(c.invalidTotal);
  return sum;
}
