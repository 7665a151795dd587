import { formatDecimal, parseDecimal } from './decimal';
import { evaluatePolicy, parsePolicy, type TradeFacts } from './spending-policy';

const POOL = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'CBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const buy = (total: string, shares: bigint, pool = POOL): TradeFacts => ({ kind: 'buy', pool, spends: new Map([['USDC', parseDecimal(total)]]), shares });
const spent = (usdc: string) => new Map([['USDC', parseDecimal(usdc)]]);

describe('decimal amounts', () => {
  it('parse and format exactly, as the API writes money', () => {
    expect(formatDecimal(parseDecimal('12.5'))).toBe('12.50');
    expect(formatDecimal(parseDecimal('0.0000001'))).toBe('0.0000001');
    expect(formatDecimal(parseDecimal('100'))).toBe('100.00');
    expect(parseDecimal('0.1') + parseDecimal('0.2')).toBe(parseDecimal('0.3'));
    for (const bad of ['-1', '1e3', '1.', 'abc', '1.0000000000000000001']) expect(() => parseDecimal(bad)).toThrow('non-negative decimal string');
  });
});

describe('spending policy', () => {
  const policy = parsePolicy({ maxPerDay: 'USDC:100', maxPricePerShare: 'USDC:2.50', allowedPools: `${POOL}, ${OTHER}` });

  it('allows a buy within every limit, up to the daily limit exactly', () => {
    expect(evaluatePolicy(policy, buy('25.00', 10n), spent('0'))).toEqual({ allowed: true });
    expect(evaluatePolicy(policy, buy('25.00', 10n), spent('75.00'))).toEqual({ allowed: true });
  });

  it('refuses what would pass the rolling daily total, saying how much is left', () => {
    expect(evaluatePolicy(policy, buy('25.00', 10n), spent('80.00'))).toEqual({
      allowed: false,
      reason:
        "Refused by the spending policy: 25.00 USDC would bring the last 24 hours' spending to 105.00 USDC, over the daily limit of 100.00 USDC (already spent 80.00 USDC, 20.00 USDC left).",
    });
  });

  it('refuses a price per share above the maximum, without rounding the division', () => {
    expect(evaluatePolicy(policy, buy('25.00', 10n), spent('0')).allowed).toBe(true); // 2.50 exactly
    expect(evaluatePolicy(policy, buy('25.0000001', 10n), spent('0'))).toEqual({
      allowed: false,
      reason: 'Refused by the spending policy: paying 2.50000001 USDC per share exceeds the maximum price per share of 2.50 USDC.',
    });
  });

  it('refuses pools outside the allowed list, for every kind', () => {
    const elsewhere = 'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC';
    expect(evaluatePolicy(policy, buy('1.00', 1n, elsewhere), spent('0'))).toMatchObject({
      allowed: false,
      reason: expect.stringContaining(`pool ${elsewhere} is not one of the allowed pools`),
    });
    expect(evaluatePolicy(policy, { kind: 'list', pool: elsewhere, spends: new Map() }, spent('0')).allowed).toBe(false);
    expect(evaluatePolicy(policy, { kind: 'cancel', pool: OTHER, spends: new Map() }, spent('1000')).allowed).toBe(true);
  });

  it('spends nothing in a token without a daily limit (fail closed)', () => {
    const eurc: TradeFacts = { kind: 'contribute', pool: POOL, spends: new Map([['EURC', parseDecimal('1')]]), shares: 1n };
    expect(evaluatePolicy(policy, eurc, new Map())).toMatchObject({ allowed: false, reason: expect.stringContaining('no daily limit is set for EURC') });
  });

  it('applies the limits to every token the envelope moves, not only the first', () => {
    const both: TradeFacts = {
      kind: 'buy',
      pool: POOL,
      spends: new Map([
        ['USDC', parseDecimal('1')],
        ['EURC', parseDecimal('1')],
      ]),
      shares: 1n,
    };
    expect(evaluatePolicy(policy, both, new Map())).toMatchObject({ allowed: false, reason: expect.stringContaining('no daily limit is set for EURC') });
  });

  it('requires a daily limit and well-formed settings', () => {
    expect(() => parsePolicy({})).toThrow('DOB_POLICY_MAX_PER_DAY is required');
    expect(() => parsePolicy({ maxPerDay: '100' })).toThrow('"100" is not SYMBOL:amount');
    expect(() => parsePolicy({ maxPerDay: 'USDC:-5' })).toThrow('non-negative decimal string');
    expect(parsePolicy({ maxPerDay: 'USDC:10' }).allowedPools).toBeUndefined();
  });
});
