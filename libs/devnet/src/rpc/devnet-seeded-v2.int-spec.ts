import { rpc, scValToNative, xdr } from '@stellar/stellar-sdk';
import { startDevnet, type RunningDevnet } from '../start-devnet';

/**
 * The seeded splitter V2 history as an indexer sees it: getEvents over HTTP with the real V2 layouts
 * (docs/contracts.md §3.3, §5): init/cfg_set, dist_new, claimed, reclaim, listed/sold/canceled from the splitter,
 * participation-token mint/transfer, and a campaign's activation into the Crowdfunding pool.
 */
describe('seeded devnet: splitter V2 pools', () => {
  let devnet: RunningDevnet;
  let server: rpc.Server;
  let events: rpc.Api.EventResponse[];
  const sym = (s: string) => xdr.ScVal.scvSymbol(s).toXDR('base64');
  const native = (v: xdr.ScVal) => scValToNative(v) as unknown;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 1000 });
    server = new rpc.Server(devnet.rpcUrl, { allowHttp: true });
    const v2 = devnet.pools.filter((p) => p.contract_kind === 'splitter_v2');
    const ids = [...v2.map((p) => p.pool_address), ...v2.map((p) => p.participation_token!)];
    const oldest = (await server.getHealth()).oldestLedger;
    events = [];
    // ≤ 5 contract ids per filter (stellar-rpc limit): one filter per pair of pool + token.
    const filters = [0, 2].map((k) => ({ type: 'contract' as const, contractIds: [...ids.slice(k, k + 2), ...ids.slice(4 + k, 4 + k + 2)] }));
    let cursor: string | undefined;
    for (;;) {
      const page = cursor
        ? await server.getEvents({ cursor, filters, limit: 10_000 })
        : await server.getEvents({ startLedger: oldest, filters, limit: 10_000 });
      events.push(...page.events);
      if (page.events.length < 10_000) break;
      cursor = page.cursor;
    }
  });
  afterAll(async () => devnet.stop());

  const named = (name: string) => events.filter((e) => native(e.topic[0]!) === name);

  it('lists four V2 pools, one per PoolType, each with its participation token', () => {
    const v2 = devnet.pools.filter((p) => p.contract_kind === 'splitter_v2');
    expect(v2.map((p) => p.pool_type)).toEqual(['reward', 'payroll', 'treasury', 'crowdfunding']);
    for (const p of v2) expect(p.participation_token).toMatch(/^C[A-Z2-7]{55}$/);
    expect(new Set(devnet.pools.map((p) => p.contract_kind))).toEqual(new Set(['splitter_v1_2', 'splitter_v1_3', 'splitter_v2', 'crowdfunding_v1']));
  });

  it('init_with_type: PT mints (admin = splitter) then init with (pt, holders, mutable, pool_type)', () => {
    const v2 = devnet.pools.filter((p) => p.contract_kind === 'splitter_v2');
    for (const [i, p] of v2.entries()) {
      const init = named('init').find((e) => e.contractId?.contractId() === p.pool_address)!;
      const [pt, holders, mutable, poolType] = native(init.value) as [string, number, boolean, number];
      expect([pt, poolType, mutable]).toEqual([p.participation_token, i, i !== 2]);
      const mints = named('mint').filter((e) => e.contractId?.contractId() === pt && e.txHash === init.txHash);
      expect(mints.length).toBe(holders);
      expect(mints.every((m) => native(m.topic[1]!) === p.pool_address)).toBe(true);
      expect(mints.reduce((s, m) => s + (native(m.value) as bigint), 0n)).toBe(1_000_000n);
    }
    expect(named('cfg_set').map((e) => native(e.value))).toContainEqual([0n, 86_400n, 31n * 86_400n]);
  });

  it('rounds: dist_new (id, amount, claimable_from, expires_at), claimed, reclaim; claimable and pending at wall time', async () => {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const rounds = named('dist_new').map((e) => ({
      pool: e.contractId!.contractId(),
      token: native(e.topic[1]!),
      v: native(e.value) as [bigint, bigint, bigint, bigint],
    }));
    expect(rounds.length).toBeGreaterThanOrEqual(8);
    for (const r of rounds) {
      expect(r.token).toBe(devnet.paymentToken);
      expect(r.v[1]).toBeGreaterThan(0n);
      expect(r.v[3] - r.v[2]).toBeGreaterThanOrEqual(30n * 86_400n);
    }
    expect(rounds.some((r) => r.v[2] <= now && now <= r.v[3])).toBe(true); // claimable now
    expect(rounds.some((r) => r.v[2] > now)).toBe(true); // still pending
    const claimed = named('claimed');
    expect(claimed.length).toBeGreaterThanOrEqual(8);
    for (const c of claimed) {
      const [id, token, amount] = native(c.value) as [bigint, string, bigint];
      expect(token).toBe(devnet.paymentToken);
      expect(amount).toBeGreaterThan(0n);
      expect(rounds.some((r) => r.pool === c.contractId!.contractId() && r.v[0] === id)).toBe(true);
    }
    const reclaims = named('reclaim');
    expect(reclaims.length).toBe(3);
    for (const r of reclaims) {
      const [id, unclaimed] = native(r.value) as [bigint, bigint];
      const round = rounds.find((x) => x.pool === r.contractId!.contractId() && x.v[0] === id)!;
      const paid = claimed
        .filter((c) => c.contractId!.contractId() === round.pool && (native(c.value) as bigint[])[0] === id)
        .reduce((s, c) => s + (native(c.value) as [bigint, string, bigint])[2], 0n);
      expect(unclaimed).toBe(round.v[1] - paid);
    }
  });

  it('escrowed marketplace: listed moves PT into the splitter, sold releases it to the buyer, canceled returns it', () => {
    const listed = named('listed');
    const sold = named('sold');
    expect(listed.length).toBe(6);
    expect(sold.length).toBe(4);
    expect(named('canceled').length).toBe(2);
    for (const l of listed) {
      const pool = devnet.pools.find((p) => p.pool_address === l.contractId!.contractId())!;
      const escrow = events.find(
        (e) => e.txHash === l.txHash && e.contractId?.contractId() === pool.participation_token && native(e.topic[0]!) === 'transfer',
      )!;
      expect(escrow.topic.map(native)).toEqual(['transfer', native(l.topic[1]!), pool.pool_address]);
      expect(native(escrow.value)).toBe((native(l.value) as bigint[])[0]);
    }
    for (const s of sold) {
      const [amount, total, token] = native(s.value) as [bigint, bigint, string];
      expect(token).toBe(devnet.paymentToken);
      expect(total).toBeGreaterThan(0n);
      const release = events.find(
        (e) => e.txHash === s.txHash && native(e.topic[0]!) === 'transfer' && e.topic.length === 3 && native(e.topic[2]!) === native(s.topic[2]!),
      );
      expect(native(release!.value)).toBe(amount);
    }
    expect(named('transfer').some((e) => e.topic.length === 3 && devnet.pools.some((p) => p.pool_address === e.contractId?.contractId()))).toBe(true);
  });

  it('the Crowdfunding pool receives its campaign activation and distributes it', async () => {
    const cfPool = devnet.pools.find((p) => p.pool_type === 'crowdfunding')!;
    // The campaign activated into the Crowdfunding pool: the one whose cf_actv names that pool.
    const campaigns = devnet.pools.filter((p) => p.contract_kind === 'crowdfunding_v1').map((p) => p.pool_address);
    const page = await server.getEvents({
      startLedger: (await server.getHealth()).oldestLedger,
      filters: [{ type: 'contract', contractIds: campaigns, topics: [[sym('cf_actv'), '*']] }],
      limit: 10,
    });
    const activations = page.events.filter((e) => (native(e.value) as [string])[0] === cfPool.pool_address);
    expect(activations).toHaveLength(1);
    const [splitter, raised] = native(activations[0]!.value) as [string, bigint, number];
    expect(splitter).toBe(cfPool.pool_address);
    const round = named('dist_new').find((e) => e.contractId?.contractId() === cfPool.pool_address)!;
    expect((native(round.value) as bigint[])[1]).toBe(raised - (raised * 50n) / 10_000n); // 50 bps distribution commission
  });
});
