import { addr, bool, i128, str, struct, u32, u64, vec } from '../../host/scval';
import { shareToScVal } from '../shared/shares';
import { HostHarness } from '../test-harness';

function pool(h: HostHarness) {
  const admin = h.account();
  const [a, b] = [h.account(), h.account()];
  const pt = h.deploy('participation_token');
  const sp = h.deploy('splitter_v2');
  h.call(pt, 'initialize', [addr(sp), u32(0), str('Pool Shares'), str('SHARE')]);
  const init = h.call(
    sp,
    'init',
    [addr(admin), vec([shareToScVal({ shareholder: a, share: 600_000n }), shareToScVal({ shareholder: b, share: 400_000n })]), bool(true), addr(pt)],
    admin,
  );
  return { admin, a, b, pt, sp, init };
}

const config = (delay: bigint, expiry: bigint) =>
  struct({ claim_delay_seconds: u64(delay), last_distribution_time: u64(0n), min_interval_seconds: u64(0n), round_expiry_seconds: u64(expiry) });

describe('splitter V2: init mints participation tokens', () => {
  it('emits PT mint events (admin = splitter) then init with 4 data items', () => {
    const h = new HostHarness();
    const { admin, a, pt, sp, init } = pool(h);
    expect(h.events(init)[0]).toEqual({ contract: pt, topics: [{ symbol: 'mint' }, { address: sp }, { address: a }], data: { i128: '600000' } });
    expect(h.events(init)[2]).toEqual({
      contract: sp,
      topics: [{ symbol: 'init' }, { address: admin }],
      data: { vec: [{ address: pt }, { u32: 2 }, { bool: true }, { u32: 0 }] },
    });
    expect(h.read(sp, 'get_share', [addr(a)])).toEqual({ i128: '600000' });
  });
});

describe('splitter V2: lazy rounds with claim windows', () => {
  it('claims open after the delay, pay pro-rata once, expire, and the admin reclaims the rest', () => {
    const h = new HostHarness();
    const { admin, a, b, sp } = pool(h);
    expect(h.fail(sp, 'set_distribution_config', [config(100n, 100n + 2_591_999n)], admin)).toEqual({ contract: 32 });
    const cfg = h.call(sp, 'set_distribution_config', [config(100n, 3_000_000n)], admin);
    expect(h.events(cfg)).toEqual([{ contract: sp, topics: [{ symbol: 'cfg_set' }], data: { vec: [{ u64: '0' }, { u64: '100' }, { u64: '3000000' }] } }]);
    expect(h.fail(sp, 'create_distribution', [addr(h.token)], admin)).toEqual({ contract: 15 });
    h.call(h.token, 'mint', [addr(sp), i128(10_000n)]);
    const created = h.call(sp, 'create_distribution', [addr(h.token)], admin);
    const t0 = h.time;
    expect(created.result.toJson()).toEqual({ u64: '0' });
    expect(h.events(created).at(-1)).toEqual({
      contract: sp,
      topics: [{ symbol: 'dist_new' }, { address: h.token }],
      data: { vec: [{ u64: '0' }, { i128: '9950' }, { u64: (t0 + 100n).toString() }, { u64: (t0 + 3_000_000n).toString() }] },
    });
    expect(h.fail(sp, 'claim', [addr(a), u64(0n)], a)).toEqual({ contract: 26 });
    expect(h.fail(sp, 'claim', [addr(a), u64(7n)], a)).toEqual({ contract: 13 });
    h.time += 100n;
    expect(h.read(sp, 'get_claimable', [addr(a), u64(0n)])).toEqual({ i128: '5970' });
    const claimed = h.call(sp, 'claim', [addr(a), u64(0n)], a);
    expect(h.events(claimed).at(-1)).toEqual({
      contract: sp,
      topics: [{ symbol: 'claimed' }, { address: a }],
      data: { vec: [{ u64: '0' }, { address: h.token }, { i128: '5970' }] },
    });
    expect(h.fail(sp, 'claim', [addr(a), u64(0n)], a)).toEqual({ contract: 14 });
    expect(h.fail(sp, 'reclaim_expired_round', [u64(0n)], admin)).toEqual({ contract: 33 });
    h.time = t0 + 3_000_001n;
    expect(h.fail(sp, 'claim', [addr(b), u64(0n)], b)).toEqual({ contract: 27 });
    const reclaimed = h.call(sp, 'reclaim_expired_round', [u64(0n)], admin);
    expect(h.events(reclaimed).at(-1)).toEqual({
      contract: sp,
      topics: [{ symbol: 'reclaim' }, { address: h.token }],
      data: { vec: [{ u64: '0' }, { i128: '3980' }] },
    });
    expect(h.read(h.token, 'balance', [addr(admin)])).toEqual({ i128: '3980' });
    expect(h.read(sp, 'get_active_rounds')).toEqual({ vec: [] });
  });

  it('claim_all pays every open round and fails #15 when nothing is due', () => {
    const h = new HostHarness();
    const { admin, b, sp } = pool(h);
    h.call(sp, 'set_distribution_config', [config(0n, 3_000_000n)], admin);
    for (const amount of [1000n, 2000n]) {
      h.call(h.token, 'mint', [addr(sp), i128(amount)]);
      h.call(sp, 'create_distribution', [addr(h.token)], admin);
    }
    // round 0: 995 → b 398; round 1: 1990 → b 796
    const r = h.call(sp, 'claim_all', [addr(b)], b);
    expect(r.result.toJson()).toEqual({ i128: '1194' });
    expect(h.fail(sp, 'claim_all', [addr(b)], b)).toEqual({ contract: 15 });
  });
});

describe('splitter V2: escrowed marketplace', () => {
  it('listing escrows PT into the splitter, a buy releases it, a second listing by the same seller fails #46', () => {
    const h = new HostHarness();
    const { a, b, pt, sp } = pool(h);
    h.call(h.token, 'mint', [addr(b), i128(1_000_000n)]);
    h.call(sp, 'list_shares_for_sale', [addr(a), i128(1000n), i128(10n), addr(h.token)], a);
    expect(h.read(pt, 'balance', [addr(sp)])).toEqual({ i128: '1000' });
    expect(h.fail(sp, 'list_shares_for_sale', [addr(a), i128(1n), i128(10n), addr(h.token)], a)).toEqual({ contract: 46 });
    expect(h.fail(sp, 'buy_shares', [addr(b), addr(a), i128(1001n)], b)).toEqual({ contract: 42 });
    const sold = h.call(sp, 'buy_shares', [addr(b), addr(a), i128(1000n)], b);
    expect(h.events(sold).at(-1)).toEqual({
      contract: sp,
      topics: [{ symbol: 'sold' }, { address: a }, { address: b }],
      data: { vec: [{ i128: '1000' }, { i128: '10000' }, { address: h.token }] },
    });
    expect(h.read(pt, 'balance', [addr(b)])).toEqual({ i128: '401000' });
    expect(h.read(h.token, 'balance', [addr(a)])).toEqual({ i128: '9850' });
    expect(h.read(sp, 'get_listing', [addr(a)])).toEqual('void');
    expect(h.fail(sp, 'cancel_listing', [addr(a)], a)).toEqual({ contract: 41 });
  });

  it('set_admin only proposes; accept_admin by the pending admin completes the transfer', () => {
    const h = new HostHarness();
    const { admin, sp } = pool(h);
    const next = h.account();
    expect(h.fail(sp, 'accept_admin', [], next)).toEqual({ contract: 3 });
    expect(h.events(h.call(sp, 'set_admin', [addr(next)], admin))).toEqual([
      { contract: sp, topics: [{ symbol: 'admin_proposed' }, { address: admin }], data: { address: next } },
    ]);
    expect(h.events(h.call(sp, 'accept_admin', [], next))).toEqual([
      { contract: sp, topics: [{ symbol: 'set_admin' }, { address: admin }], data: { address: next } },
    ]);
  });
});
