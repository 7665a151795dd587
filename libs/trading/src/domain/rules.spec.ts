import { AppError } from '@dob/domain';
import { parseTokenAmount, percentString } from './amounts';
import { contractErrorName, describeContractError, splitterFamily } from './contract-errors';
import { checkReclaim, planContribution, type CampaignConfig } from './crowdfunding-rules';
import { checkHeldShares, checkListTerms, requireActive, requireListing, sharesToBuy } from './marketplace-rules';
import type { ListingInfo } from '../ports/listing-lookup.port';

const U = 10_000_000n;
const listing: ListingInfo = {
  saleAddress: 'SALE_1',
  networkId: 9,
  pool: 'CPOOL',
  seller: 'GSELLER',
  sharesAmount: 30n,
  pricePerShare: 25_000_000n,
  paymentToken: 'CUSDC',
  status: 'active',
  poolVersion: '1',
};
const onChain = { sharesForSale: 30n, pricePerShare: 25_000_000n, paymentToken: 'CUSDC' };
const failure = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a failure');
};

describe('marketplace rules', () => {
  it('404 for an unknown listing or one on another network', () => {
    expect(failure(() => requireListing(null, 'SALE_X', 9)).code).toBe('NOT_FOUND');
    expect(failure(() => requireListing({ ...listing, networkId: 10 }, 'SALE_1', 9)).code).toBe('NOT_FOUND');
    expect(requireListing(listing, 'SALE_1', 9)).toBe(listing);
  });

  it('409 when sold/cancelled in the read model, gone on chain, or re-listed with other terms', () => {
    expect(failure(() => requireActive({ ...listing, status: 'sold' }, onChain)).code).toBe('CONFLICT');
    expect(failure(() => requireActive(listing, null)).code).toBe('CONFLICT');
    expect(failure(() => requireActive(listing, { ...onChain, pricePerShare: 1n })).code).toBe('CONFLICT');
    expect(requireActive(listing, { ...onChain, sharesForSale: 12n }).sharesForSale).toBe(12n);
  });

  it('buys all available by default, refuses own listing, non-positive and above-available amounts', () => {
    expect(sharesToBuy(listing, { ...onChain, sharesForSale: 12n }, 'GBUYER', undefined)).toBe(12n);
    expect(sharesToBuy(listing, onChain, 'GBUYER', 30)).toBe(30n);
    expect(failure(() => sharesToBuy(listing, onChain, 'GSELLER', 1)).message).toBe('Cannot buy your own listing');
    expect(failure(() => sharesToBuy(listing, onChain, 'GBUYER', 0)).code).toBe('VALIDATION_ERROR');
    expect(failure(() => sharesToBuy(listing, onChain, 'GBUYER', -3)).code).toBe('VALIDATION_ERROR');
    const over = failure(() => sharesToBuy(listing, onChain, 'GBUYER', 31));
    expect([over.code, over.details?.available_shares]).toEqual(['VALIDATION_ERROR', 30]);
  });

  it('list terms: positive shares and price, not more than held', () => {
    expect(failure(() => checkListTerms(0, 1n)).code).toBe('VALIDATION_ERROR');
    expect(failure(() => checkListTerms(1.5, 1n)).code).toBe('VALIDATION_ERROR');
    expect(failure(() => checkListTerms(1, 0n)).code).toBe('VALIDATION_ERROR');
    expect(failure(() => checkHeldShares(9n, 10n)).message).toMatch(/holds 9 shares .* cannot list 10/);
    expect(() => checkHeldShares(10n, 10n)).not.toThrow();
  });
});

describe('crowdfunding rules (the five failures of docs/agent-api.md#errors)', () => {
  const config: CampaignConfig = {
    paymentToken: 'CUSDC',
    pricePerShare: U,
    softCapShares: 1_000n,
    hardCapShares: 5_000n,
    deadline: 2_000n,
    status: 0,
    totalSharesSold: 0n,
  };
  const plan = (over: Partial<{ amount: bigint; raised: bigint; balance: bigint; nowSeconds: bigint }>, c = config) =>
    planContribution(c, { amount: 10n * U, raised: 0n, balance: 10_000n * U, nowSeconds: 1_000n, decimals: 7, symbol: 'USDC', ...over });

  it('deadline passed (clock or status), amount ≤ 0, above remaining target with the maximum, balance too low', () => {
    expect(failure(() => plan({ nowSeconds: 2_000n })).message).toBe('Crowdfunding campaign deadline has passed');
    expect(failure(() => plan({}, { ...config, status: 2 })).message).toBe('Crowdfunding campaign deadline has passed');
    expect(failure(() => plan({ amount: 0n })).message).toBe('Contribution amount must be greater than zero');
    expect(failure(() => plan({ amount: -1n })).message).toBe('Contribution amount must be greater than zero');
    expect(failure(() => plan({ amount: 901n * U, raised: 100n * U })).message).toBe('Amount exceeds remaining target. Maximum contribution: 900.00 USDC');
    expect(failure(() => plan({ amount: 10n * U, balance: 9n * U })).message).toBe('Insufficient balance of the payment token');
  });

  it('shares = floor(amount / price); payment = shares × price', () => {
    expect(plan({ amount: 125n * (U / 10n) })).toEqual({ shares: 12n, payment: 12n * U, target: 1_000n * U });
    expect(failure(() => plan({ amount: U / 2n })).message).toMatch(/at least one share/);
  });

  it('reclaim only from a failed campaign and with a contribution', () => {
    expect(failure(() => checkReclaim(config, 5n, 1_000n)).message).toMatch(/has not failed/);
    expect(failure(() => checkReclaim(config, 5n, 3_000n)).message).toMatch(/not finalized yet/);
    expect(failure(() => checkReclaim({ ...config, status: 2 }, 0n, 3_000n)).message).toMatch(/Nothing to reclaim/);
    expect(() => checkReclaim({ ...config, status: 2 }, 5n, 3_000n)).not.toThrow();
  });
});

describe('contract error names per version', () => {
  it('names a code only with its contract family', () => {
    expect(contractErrorName('splitter_v1', 13)).toBe('NoActiveListing');
    expect(contractErrorName('splitter_v2', 41)).toBe('NoActiveListing');
    expect(contractErrorName('splitter_v1', 7)).toBe('ZeroTransferAmount');
    expect(contractErrorName('splitter_v2', 7)).toBe('NegativeShareAmount');
    expect(contractErrorName('splitter_v2', 46)).toBe('ListingAlreadyExists');
    expect(contractErrorName('crowdfunding', 8)).toBe('CampaignNotFailed');
    expect(contractErrorName('crowdfunding', 24)).toBe('InvalidPayoutMode');
    expect(contractErrorName('splitter_v1', 99)).toBeNull();
    expect(splitterFamily('2')).toBe('splitter_v2');
    expect(splitterFamily(null)).toBe('splitter_v1');
  });

  it('reads the code out of a host error text', () => {
    expect(describeContractError('splitter_v1', 'HostError: Error(Contract, #14)')).toEqual({
      code: 14,
      name: 'InsufficientSharesInListing',
      contract: 'splitter_v1',
    });
    expect(describeContractError('crowdfunding', 'HostError: Error(Auth, InvalidAction)')).toBeNull();
  });
});

describe('money', () => {
  it('parses decimal strings to base units exactly, refusing excess precision and non-numbers', () => {
    expect(parseTokenAmount('12.5', 7, 'amount')).toBe(125_000_000n);
    expect(parseTokenAmount('0.0000001', 7, 'amount')).toBe(1n);
    expect(parseTokenAmount('-3', 7, 'amount')).toBe(-30_000_000n);
    expect(failure(() => parseTokenAmount('0.00000001', 7, 'amount')).code).toBe('VALIDATION_ERROR');
    expect(failure(() => parseTokenAmount('1e3', 7, 'amount')).code).toBe('VALIDATION_ERROR');
    expect(percentString(12n, 5_000n)).toBe('0.24');
    expect(percentString(1n, 0n)).toBe('0.00');
  });
});
