import { addr, bool, i128, u32, u64, vec } from '../../host/scval';
import { shareToScVal } from '../shared/shares';
import { HostHarness } from '../test-harness';

function campaign(h: HostHarness, deadlineIn = 1000n) {
  const admin = h.account();
  const cf = h.deploy('crowdfunding_v1');
  const [x, y] = [h.account(), h.account()];
  for (const who of [x, y]) h.call(h.token, 'mint', [addr(who), i128(1_000_000n)]);
  h.call(cf, 'init', [addr(admin), addr(h.token), i128(100n), i128(1000n), i128(2000n), u64(h.time + deadlineIn), u32(0)], admin);
  return { admin, cf, x, y };
}

describe('crowdfunding_v1 cf-v0.3.0', () => {
  it('validates init (#13 price, #14 caps, #15 deadline, #24 payout mode, #2 twice)', () => {
    const h = new HostHarness();
    const admin = h.account();
    const cf = h.deploy('crowdfunding_v1');
    const init = (price: bigint, soft: bigint, hard: bigint, deadline: bigint, mode: number) =>
      h.fail(cf, 'init', [addr(admin), addr(h.token), i128(price), i128(soft), i128(hard), u64(deadline), u32(mode)], admin);
    expect(init(0n, 1n, 2n, h.time + 10n, 0)).toEqual({ contract: 13 });
    expect(init(1n, 0n, 2n, h.time + 10n, 0)).toEqual({ contract: 14 });
    expect(init(1n, 5n, 2n, h.time + 10n, 0)).toEqual({ contract: 14 });
    expect(init(1n, 1n, 1_000_001n, h.time + 10n, 0)).toEqual({ contract: 14 });
    expect(init(1n, 1n, 2n, h.time, 0)).toEqual({ contract: 15 });
    expect(init(1n, 1n, 2n, h.time + 10n, 2)).toEqual({ contract: 24 });
    h.call(cf, 'init', [addr(admin), addr(h.token), i128(1n), i128(1n), i128(2n), u64(h.time + 10n), u32(1)], admin);
    expect(init(1n, 1n, 2n, h.time + 10n, 0)).toEqual({ contract: 2 });
  });

  it('contribute transfers the payment first and emits cf_ctrb; caps and deadline are enforced', () => {
    const h = new HostHarness();
    const { cf, x, y } = campaign(h);
    const r = h.call(cf, 'contribute', [addr(x), i128(300n)], x);
    expect(h.events(r)).toEqual([
      { contract: h.token, topics: [{ symbol: 'transfer' }, { address: x }, { address: cf }, { string: `USDC:${h.issuer}` }], data: { i128: '30000' } },
      { contract: cf, topics: [{ symbol: 'cf_ctrb' }, { address: x }], data: { vec: [{ i128: '300' }, { i128: '30000' }, { i128: '300' }] } },
    ]);
    expect(h.fail(cf, 'contribute', [addr(y), i128(0n)], y)).toEqual({ contract: 10 });
    expect(h.fail(cf, 'contribute', [addr(y), i128(1701n)], y)).toEqual({ contract: 11 });
    expect(h.fail(cf, 'finalize', [])).toEqual({ contract: 6 });
    h.time += 1000n;
    expect(h.fail(cf, 'contribute', [addr(y), i128(1n)], y)).toEqual({ contract: 4 });
  });

  it('a campaign under the soft cap fails at finalize and investors are refunded; refund twice fails #12', () => {
    const h = new HostHarness();
    const { cf, x, y } = campaign(h);
    h.call(cf, 'contribute', [addr(x), i128(300n)], x);
    expect(h.fail(cf, 'refund', [addr(x)], x)).toEqual({ contract: 8 });
    h.time += 1000n;
    const fin = h.call(cf, 'finalize', []);
    expect(fin.result.toJson()).toEqual({ u32: 2 });
    expect(h.events(fin)).toEqual([
      { contract: cf, topics: [{ symbol: 'cf_done' }, { address: cf }], data: { vec: [{ u32: 2 }, { i128: '300' }, { i128: '30000' }] } },
    ]);
    expect(h.fail(cf, 'finalize', [])).toEqual({ contract: 5 });
    const refund = h.call(cf, 'refund', [addr(x)], x);
    expect(h.events(refund)[1]).toEqual({ contract: cf, topics: [{ symbol: 'cf_rfnd' }, { address: x }], data: { vec: [{ i128: '300' }, { i128: '30000' }] } });
    expect(h.read(h.token, 'balance', [addr(x)])).toEqual({ i128: '1000000' });
    expect(h.fail(cf, 'refund', [addr(x)], x)).toEqual({ contract: 12 });
    expect(h.fail(cf, 'refund', [addr(y)], y)).toEqual({ contract: 12 });
    // refund does not decrement the raise counters (docs/contracts.md §4.6)
    expect(h.read(cf, 'get_total_raised')).toEqual({ i128: '30000' });
  });

  it('succeeded → propose (probe) → cancel (cf_cncl) → propose → activate escrows the raise into the splitter', () => {
    const h = new HostHarness();
    const { admin, cf, x, y } = campaign(h);
    h.call(cf, 'contribute', [addr(x), i128(800n)], x);
    h.call(cf, 'contribute', [addr(y), i128(400n)], y);
    h.time += 1000n;
    h.call(cf, 'finalize', []);
    const pool = h.deploy('splitter_v1_2');
    expect(h.fail(cf, 'activate', [addr(pool)], admin)).toEqual({ contract: 17 });
    expect(h.fail(cf, 'propose_activation', [addr(cf)], admin)).toEqual({ contract: 20 });
    // the probe calls get_allocation: an uninitialised V1 splitter answers NotInitialized, which aborts
    expect(h.fail(cf, 'propose_activation', [addr(pool)], admin)).toEqual({ contract: 1 });
    h.call(pool, 'init', [addr(admin), vec([shareToScVal({ shareholder: x, share: 10000n })]), bool(true)], admin);
    const prop = h.call(cf, 'propose_activation', [addr(pool)], admin);
    expect(h.events(prop)).toEqual([
      { contract: cf, topics: [{ symbol: 'cf_prop' }, { address: cf }], data: { vec: [{ address: pool }, { u64: h.time.toString() }] } },
    ]);
    expect(h.events(h.call(cf, 'cancel_activation', [], admin))).toEqual([
      { contract: cf, topics: [{ symbol: 'cf_cncl' }, { address: cf }], data: { address: pool } },
    ]);
    expect(h.fail(cf, 'opt_out', [addr(y)], y)).toEqual({ contract: 17 });
    h.call(cf, 'propose_activation', [addr(pool)], admin);
    const other = h.deploy('splitter_v1_2');
    expect(h.fail(cf, 'activate', [addr(other)], admin)).toEqual({ contract: 19 });
    const act = h.call(cf, 'activate', [addr(pool)], admin);
    expect(act.result.toJson()).toEqual({ i128: '120000' });
    expect(h.read(h.token, 'balance', [addr(pool)])).toEqual({ i128: '120000' });
    expect(h.read(cf, 'get_splitter')).toEqual({ address: pool });
    expect(h.read(cf, 'get_status')).toEqual({ u32: 3 });
    expect(h.fail(cf, 'activate', [addr(pool)], admin)).toEqual({ contract: 9 });
  });
});
