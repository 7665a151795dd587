import { xdr } from '@stellar/stellar-sdk';
import { contractDataKey } from '../../host/ledger-entries';
import { addr, bool, dataKey, i128, u32, vec } from '../../host/scval';
import { shareToScVal } from '../shared/shares';
import { HostHarness } from '../test-harness';

const shares = (list: Array<[string, bigint]>) => vec(list.map(([shareholder, share]) => shareToScVal({ shareholder, share })));

function setup(kind: 'splitter_v1_2' | 'splitter_v1_3' = 'splitter_v1_2') {
  const h = new HostHarness();
  const admin = h.account();
  const [a, b, c] = [h.account(), h.account(), h.account()];
  const pool = h.deploy(kind);
  h.call(
    pool,
    'init',
    [
      addr(admin),
      shares([
        [a, 3333n],
        [b, 3333n],
        [c, 3334n],
      ]),
      bool(true),
    ],
    admin,
  );
  return { h, admin, a, b, c, pool };
}

describe('splitter V1.2: init and cap table', () => {
  it('emits init and rejects a second init (#2) and bad cap tables (#5, #22, #23, #6)', () => {
    const h = new HostHarness();
    const admin = h.account();
    const [a, b] = [h.account(), h.account()];
    const pool = h.deploy('splitter_v1_2');
    expect(h.fail(pool, 'init', [addr(admin), shares([]), bool(true)])).toEqual({ contract: 5 });
    expect(
      h.fail(pool, 'init', [
        addr(admin),
        shares([
          [a, -1n],
          [b, 10001n],
        ]),
        bool(true),
      ]),
    ).toEqual({ contract: 22 });
    expect(
      h.fail(pool, 'init', [
        addr(admin),
        shares([
          [a, 5000n],
          [a, 5000n],
        ]),
        bool(true),
      ]),
    ).toEqual({ contract: 23 });
    expect(
      h.fail(pool, 'init', [
        addr(admin),
        shares([
          [a, 5000n],
          [b, 4999n],
        ]),
        bool(true),
      ]),
    ).toEqual({ contract: 6 });
    expect(h.fail(pool, 'get_config', [])).toEqual({ contract: 1 });
    const r = h.call(
      pool,
      'init',
      [
        addr(admin),
        shares([
          [a, 6000n],
          [b, 4000n],
        ]),
        bool(false),
      ],
      admin,
    );
    expect(h.events(r)).toEqual([{ contract: pool, topics: [{ symbol: 'init' }, { address: admin }], data: { vec: [{ u32: 2 }, { bool: false }] } }]);
    expect(h.fail(pool, 'init', [addr(admin), shares([[a, 10000n]]), bool(true)])).toEqual({ contract: 2 });
    expect(h.read(pool, 'get_config')).toEqual({
      map: [
        { key: { symbol: 'admin' }, val: { address: admin } },
        { key: { symbol: 'mutable' }, val: { bool: false } },
      ],
    });
    expect(h.read(pool, 'get_share', [addr(a)])).toEqual({ i128: '6000' });
    expect(h.read(pool, 'get_share', [addr(admin)])).toEqual('void');
    // locked at init: update_shares → ContractLocked
    expect(h.fail(pool, 'update_shares', [shares([[a, 10000n]])], admin)).toEqual({ contract: 4 });
  });

  it('update_shares replaces the cap table; lock_contract then forbids it', () => {
    const { h, admin, a, pool } = setup();
    const r = h.call(pool, 'update_shares', [shares([[a, 10000n]])], admin);
    expect(h.events(r)).toEqual([{ contract: pool, topics: [{ symbol: 'shares' }], data: { u32: 1 } }]);
    expect(h.read(pool, 'list_shares')).toEqual({ vec: [shareToScVal({ shareholder: a, share: 10000n }).toJson()] });
    expect(h.events(h.call(pool, 'lock_contract', [], admin))).toEqual([{ contract: pool, topics: [{ symbol: 'locked' }], data: { bool: true } }]);
    expect(h.fail(pool, 'update_shares', [shares([[a, 10000n]])], admin)).toEqual({ contract: 4 });
  });
});

describe('splitter V1.2: push distribution with commission and dust', () => {
  it('allocates floor shares, pays 0.5 % commission first and gives the dust to the first largest holder', () => {
    const { h, admin, a, b, c, pool } = setup();
    h.call(h.token, 'mint', [addr(pool), i128(10_001n)]);
    const r = h.call(pool, 'distribute_tokens', [addr(h.token)], admin);
    // distributable 10001, commission floor(10001*50/10000)=50, for holders 9951
    // a,b: floor(9951*3333/10000)=3316, c: floor(9951*3334/10000)=3317 → 9949, dust 2 → c (largest)
    const recipient = 'GCYBJHXG4JRODEFRVXHFWDHRQQSEYYBM2P455ME3OGETCURTQJLZVX72';
    expect(h.events(r).map((e) => (e as { topics: Array<{ symbol?: string }> }).topics[0]!.symbol)).toEqual([
      'transfer',
      'dist_com',
      'distrib',
      'distrib',
      'distrib',
      'dust',
      'dist_all',
    ]);
    expect(h.events(r)[1]).toEqual({
      contract: pool,
      topics: [{ symbol: 'dist_com' }, { address: h.token }],
      data: { vec: [{ address: recipient }, { i128: '50' }] },
    });
    expect(h.events(r)[4]).toEqual({
      contract: pool,
      topics: [{ symbol: 'distrib' }, { address: c }],
      data: { vec: [{ address: h.token }, { i128: '3317' }] },
    });
    expect(h.events(r)[5]).toEqual({ contract: pool, topics: [{ symbol: 'dust' }, { address: c }], data: { vec: [{ address: h.token }, { i128: '2' }] } });
    expect(h.events(r)[6]).toEqual({ contract: pool, topics: [{ symbol: 'dist_all' }, { address: h.token }], data: { i128: '9951' } });
    expect(h.read(pool, 'get_allocation', [addr(c), addr(h.token)])).toEqual({ i128: '3319' });
    expect(h.read(pool, 'get_allocation', [addr(a), addr(h.token)])).toEqual({ i128: '3316' });
    // nothing new: silent Ok with no events
    expect(h.call(pool, 'distribute_tokens', [addr(h.token)], admin).events).toHaveLength(0);
    // unused balance is 0: admin cannot take allocated funds
    expect(h.fail(pool, 'transfer_tokens', [addr(h.token), addr(admin), i128(1n)], admin)).toEqual({ contract: 9 });
    expect(h.fail(pool, 'transfer_tokens', [addr(h.token), addr(admin), i128(0n)], admin)).toEqual({ contract: 7 });
    // withdrawals
    expect(h.fail(pool, 'withdraw_allocation', [addr(h.token), addr(b), i128(0n)], b)).toEqual({ contract: 10 });
    expect(h.fail(pool, 'withdraw_allocation', [addr(h.token), addr(b), i128(3317n)], b)).toEqual({ contract: 11 });
    const w = h.call(pool, 'withdraw_allocation', [addr(h.token), addr(b), i128(3316n)], b);
    expect(h.events(w)[1]).toEqual({
      contract: pool,
      topics: [{ symbol: 'withdraw' }, { address: b }],
      data: { vec: [{ address: h.token }, { i128: '3316' }] },
    });
    expect(h.read(h.token, 'balance', [addr(b)])).toEqual({ i128: '3316' });
    // withdraw_allocation.rs: a full withdrawal removes the holder's entry; the last one removes TotalAllocation
    const stored = (key: xdr.ScVal) => h.host.getLedgerEntries([contractDataKey(pool, key, xdr.ContractDataDurability.persistent)]).length;
    expect(stored(dataKey('Allocation', addr(b), addr(h.token)))).toBe(0);
    expect(stored(dataKey('TotalAllocation', addr(h.token)))).toBe(1);
    h.call(pool, 'withdraw_allocation', [addr(h.token), addr(a), i128(3000n)], a);
    expect(h.read(pool, 'get_allocation', [addr(a), addr(h.token)])).toEqual({ i128: '316' });
    h.call(pool, 'withdraw_allocation', [addr(h.token), addr(a), i128(316n)], a);
    h.call(pool, 'withdraw_allocation', [addr(h.token), addr(c), i128(3319n)], c);
    expect(stored(dataKey('TotalAllocation', addr(h.token)))).toBe(0);
  });
});

describe('splitter V1.2: marketplace (no escrow)', () => {
  it('list → buy partially with buy commission sub-transfers → buy the rest removes the listing', () => {
    const { h, a, b, pool } = setup();
    const buyer = b;
    h.call(h.token, 'mint', [addr(buyer), i128(1_000_000n)]);
    expect(h.fail(pool, 'list_shares_for_sale', [addr(a), i128(0n), i128(100n), addr(h.token)], a)).toEqual({ contract: 16 });
    expect(h.fail(pool, 'list_shares_for_sale', [addr(a), i128(10n), i128(0n), addr(h.token)], a)).toEqual({ contract: 15 });
    expect(h.fail(pool, 'list_shares_for_sale', [addr(a), i128(3334n), i128(100n), addr(h.token)], a)).toEqual({ contract: 12 });
    const listed = h.call(pool, 'list_shares_for_sale', [addr(a), i128(1000n), i128(100n), addr(h.token)], a);
    expect(h.events(listed)).toEqual([
      { contract: pool, topics: [{ symbol: 'listed' }, { address: a }], data: { vec: [{ i128: '1000' }, { i128: '100' }, { address: h.token }] } },
    ]);
    expect(h.fail(pool, 'buy_shares', [addr(a), addr(a), i128(1n)], a)).toEqual({ contract: 17 });
    expect(h.fail(pool, 'buy_shares', [addr(buyer), addr(a), i128(1001n)], buyer)).toEqual({ contract: 14 });

    const sim = h.host.invoke(
      { contractId: pool, fn: 'buy_shares', args: [addr(buyer), addr(a), i128(400n)], source: h.issuer, ledger: h.ledger(), authMode: 'record' },
      { commit: false },
    );
    if (!sim.ok) throw new Error(sim.message);
    // root buy_shares(buyer, seller, n) with payment sub-invocations, address credentials (buyer ≠ source)
    expect(sim.auth).toHaveLength(1);
    const root = sim.auth[0]!.toJson() as {
      credentials: { address: { address: string } };
      root_invocation: { function: unknown; sub_invocations: Array<{ function: { contract_fn: { function_name: string; args: unknown[] } } }> };
    };
    expect(root.credentials.address.address).toBe(buyer);
    expect(root.root_invocation.sub_invocations.map((s) => s.function.contract_fn.args)).toEqual([
      [{ address: buyer }, { address: a }, { i128: '39400' }],
      [{ address: buyer }, { address: 'GCYBJHXG4JRODEFRVXHFWDHRQQSEYYBM2P455ME3OGETCURTQJLZVX72' }, { i128: '600' }],
    ]);

    const sold = h.call(pool, 'buy_shares', [addr(buyer), addr(a), i128(400n)], buyer);
    expect(h.events(sold)[2]).toEqual({
      contract: pool,
      topics: [{ symbol: 'sold' }, { address: a }, { address: buyer }],
      data: { vec: [{ i128: '400' }, { i128: '40000' }, { address: h.token }] },
    });
    expect(h.read(pool, 'get_share', [addr(a)])).toEqual({ i128: '2933' });
    expect(h.read(pool, 'get_share', [addr(buyer)])).toEqual({ i128: '3733' });
    expect(h.read(pool, 'get_listing', [addr(a)])).toMatchObject({
      map: expect.arrayContaining([{ key: { symbol: 'shares_for_sale' }, val: { i128: '600' } }]),
    });
    h.call(pool, 'buy_shares', [addr(buyer), addr(a), i128(600n)], buyer);
    expect(h.read(pool, 'get_listing', [addr(a)])).toEqual('void');
    expect(h.read(pool, 'list_all_sales')).toEqual({ vec: [] });
    expect(h.fail(pool, 'buy_shares', [addr(buyer), addr(a), i128(1n)], buyer)).toEqual({ contract: 13 });
  });

  it('cancel_listing emits canceled; cancelling again fails #13', () => {
    const { h, a, pool } = setup();
    h.call(pool, 'list_shares_for_sale', [addr(a), i128(10n), i128(5n), addr(h.token)], a);
    expect(h.events(h.call(pool, 'cancel_listing', [addr(a)], a))).toEqual([
      { contract: pool, topics: [{ symbol: 'canceled' }, { address: a }], data: { bool: true } },
    ]);
    expect(h.fail(pool, 'cancel_listing', [addr(a)], a)).toEqual({ contract: 13 });
  });

  it('a buyer without funds fails atomically (SAC BalanceError) and nothing moves', () => {
    const { h, a, c, pool } = setup();
    h.call(pool, 'list_shares_for_sale', [addr(a), i128(10n), i128(5n), addr(h.token)], a);
    expect(h.fail(pool, 'buy_shares', [addr(c), addr(a), i128(10n)], c)).toEqual({ contract: 10 });
    expect(h.read(pool, 'get_share', [addr(a)])).toEqual({ i128: '3333' });
  });

  it('transfer_shares moves points with its own transfer event and error codes', () => {
    const { h, a, b, pool } = setup();
    expect(h.fail(pool, 'transfer_shares', [addr(a), addr(a), i128(1n)], a)).toEqual({ contract: 20 });
    expect(h.fail(pool, 'transfer_shares', [addr(a), addr(b), i128(0n)], a)).toEqual({ contract: 16 });
    expect(h.fail(pool, 'transfer_shares', [addr(h.issuer), addr(b), i128(1n)])).toEqual({ contract: 18 });
    expect(h.fail(pool, 'transfer_shares', [addr(a), addr(b), i128(3334n)], a)).toEqual({ contract: 19 });
    const r = h.call(pool, 'transfer_shares', [addr(a), addr(b), i128(3333n)], a);
    expect(h.events(r)).toEqual([{ contract: pool, topics: [{ symbol: 'transfer' }, { address: a }, { address: b }], data: { i128: '3333' } }]);
    expect(h.read(pool, 'get_share', [addr(a)])).toEqual('void');
  });
});

describe('splitter V1.3: batch distribution and set_admin', () => {
  it('start → process in batches → finalize gives the same allocations as push distribution', () => {
    const { h, admin, c, pool } = setup('splitter_v1_3');
    h.call(h.token, 'mint', [addr(pool), i128(10_001n)]);
    const start = h.call(pool, 'start_distribution', [addr(h.token)], admin);
    expect(start.result.toJson()).toEqual({ u32: 3 });
    expect(h.events(start).at(-1)).toEqual({ contract: pool, topics: [{ symbol: 'dist_str' }], data: { vec: [{ u32: 3 }, { i128: '9951' }] } });
    expect(h.fail(pool, 'start_distribution', [addr(h.token)], admin)).toEqual({ contract: 26 });
    expect(h.fail(pool, 'finalize_distribution', [], admin)).toEqual({ contract: 28 });
    expect(h.call(pool, 'process_distribution', [u32(2)], admin).result.toJson()).toEqual({ bool: true });
    expect(h.call(pool, 'process_distribution', [u32(2)], admin).result.toJson()).toEqual({ bool: false });
    const fin = h.call(pool, 'finalize_distribution', [], admin);
    expect(h.events(fin).map((e) => (e as { topics: Array<{ symbol: string }> }).topics[0]!.symbol)).toEqual(['dust', 'dist_all']);
    expect(h.read(pool, 'get_allocation', [addr(c), addr(h.token)])).toEqual({ i128: '3319' });
    expect(h.fail(pool, 'process_distribution', [u32(1)], admin)).toEqual({ contract: 27 });
    const next = h.account();
    expect(h.events(h.call(pool, 'set_admin', [addr(next)], admin))).toEqual([
      { contract: pool, topics: [{ symbol: 'set_admin' }, { address: admin }], data: { address: next } },
    ]);
  });

  it("enforce mode: buy_shares without the buyer's authorization fails with Error(Auth, InvalidAction)", () => {
    const { h, a, b, pool } = setup();
    h.call(pool, 'list_shares_for_sale', [addr(a), i128(10n), i128(5n), addr(h.token)], a);
    const r = h.host.invoke(
      { contractId: pool, fn: 'buy_shares', args: [addr(b), addr(a), i128(1n)], source: a, ledger: h.ledger(), authMode: 'enforce', authEntries: [] },
      { commit: true },
    );
    if (r.ok) throw new Error('expected auth failure');
    expect(r.error.toJson()).toEqual({ auth: 'invalid_action' });
  });
});
