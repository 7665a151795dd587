import { contractAddr } from '../../../../libs/read-models/src/testing/chain-scenario';
import { busyWorld } from '../../../../libs/read-models/src/testing/busy-world';
import { readModelBackends } from '../../../../libs/read-models/src/testing/read-model-backends';
import { startReadApi, type ReadApi } from '../testing/read-api-harness';

/**
 * One event history projected into PostgreSQL and into MongoDB (FerretDB) by the same projection definitions;
 * every read endpoint, filter, sort and page boundary is requested from both APIs and the responses must be
 * byte-identical (status and body). The history is busyWorld on networks 9 and 10 (same addresses: the ambiguity
 * cases), queried at its last instant so rounds are pending, completed and expired.
 */
jest.setTimeout(600_000);

const GROUPS = 8;
const WALLETS = ['busy-0-holder-0', 'busy-1-holder-3', 'busy-2-holder-1', 'busy-5-holder-5'];

describe('read API: PostgreSQL and MongoDB stores answer byte-identically', () => {
  const testnet = busyWorld(GROUPS, 9);
  const mainnet = busyWorld(Math.ceil(GROUPS / 2), 10);
  const history = [...testnet.streamAppends(), ...mainnet.streamAppends()];
  const now = testnet.now;
  const stores = readModelBackends().filter((b) => b.name === 'postgres' || b.name === 'mongodb');
  const apis: ReadApi[] = [];
  const keys: string[][] = [];

  beforeAll(async () => {
    for (const store of stores) {
      const api = await startReadApi(store, history, now);
      apis.push(api);
      const mine: string[] = [];
      for (const w of WALLETS) mine.push(await api.register(w));
      keys.push(mine);
    }
  });
  afterAll(async () => {
    for (const api of apis) await api.close();
  });

  /** Every URL of the read API worth asking about this history, discovered through the PostgreSQL API. */
  async function urls(): Promise<{ url: string; wallet: number }[]> {
    const pg = apis[0]!;
    const key = keys[0]![0]!;
    const out: { url: string; wallet: number }[] = [];
    const add = (url: string, wallet = 0) => out.push({ url, wallet });
    const total = async (url: string) => (await pg.get(url, key)).body.meta.total as number;
    const pages = async (base: string, limit: number) => {
      const sep = base.includes('?') ? '&' : '?';
      const n = await total(`${base}${sep}limit=${limit}`);
      for (let page = 1; page <= Math.ceil(n / limit) + 1; page++) add(`${base}${sep}limit=${limit}&page=${page}`);
    };
    for (const sort of ['created_desc', 'created_asc', 'apr_desc', 'apr_asc', 'members_desc', 'members_asc']) await pages(`/pools?sort=${sort}`, 7);
    for (const q of [
      'search=busy',
      'search=BS1',
      'search=wInD%203',
      'search=%25',
      'search=_',
      'network_id=9',
      'network_id=10',
      'network_id=11',
      'access_type=rtj',
      'access_type=p',
      'access_type=qr',
      'access_type=stk',
    ]) {
      await pages(`/pools?${q}&sort=apr_asc`, 5);
    }
    add('/pools');
    for (const ghost of [
      `/pools/${contractAddr('ghost')}`,
      `/marketplace/stats/${contractAddr('ghost')}`,
      `/portfolio/positions/${contractAddr('busy-v2-7')}?network_id=9`,
    ])
      add(ghost);
    for (const n of ['', '?network_id=9', '?network_id=10']) add(`/pools/featured${n}`);
    for (const sort of ['deadline_asc', 'deadline_desc', 'progress_desc']) {
      for (const status of ['all', 'active']) for (const n of ['', '&network_id=10']) add(`/pools/crowdfunding?sort=${sort}&status=${status}${n}`);
    }
    const all = [];
    for (let page = 1; page <= Math.ceil((await total('/pools?limit=100')) / 100); page++)
      all.push(...(await pg.get(`/pools?limit=100&page=${page}`, key)).body.data);
    for (const p of all) {
      const at = `${p.address}?network_id=${p.network_id}`;
      add(`/pools/${p.address}`); // ambiguous or not
      add(`/pools/${at}`);
      await pages(`/pools/${p.address}/members?network_id=${p.network_id}`, 2);
      for (const status of ['', '&status=completed', '&status=pending', '&status=expired'])
        add(`/pools/${p.address}/distributions?network_id=${p.network_id}${status}`);
      for (const type of ['', 'init', 'distribute', 'claim', 'transfer_shares', 'withdraw', 'lock', 'set_admin'])
        await pages(`/pools/${p.address}/events?network_id=${p.network_id}${type ? `&event_type=${type}` : ''}`, 4);
      for (const sort of ['price_asc', 'price_desc', 'created_desc'])
        for (const status of ['active', 'all']) add(`/marketplace/listings/${at}&sort=${sort}&status=${status}`);
      add(`/marketplace/stats/${at}`);
    }
    for (const sort of ['created_desc', 'created_asc', 'price_asc', 'price_desc']) {
      for (const status of ['active', 'sold', 'cancelled', 'all']) await pages(`/marketplace/listings?sort=${sort}&status=${status}`, 3);
    }
    for (const q of [
      'network_id=10',
      'payment_token=usdc',
      'payment_token=NOPE',
      `payment_token=${encodeURIComponent((await pg.get('/marketplace/listings', key)).body.data[0].payment_token_address)}`,
    ]) {
      await pages(`/marketplace/listings?${q}&status=all`, 4);
    }
    for (let w = 0; w < WALLETS.length; w++) {
      out.push(
        { url: '/portfolio/holdings', wallet: w },
        { url: '/portfolio/holdings?network_id=10', wallet: w },
        { url: '/portfolio/distributions', wallet: w },
      );
      for (const h of (await pg.get('/portfolio/holdings', keys[0]![w]!)).body.data) {
        out.push(
          { url: `/portfolio/positions/${h.pool_address}`, wallet: w },
          { url: `/portfolio/positions/${h.pool_address}?network_id=${h.network_id}`, wallet: w },
        );
      }
      for (const q of ['', '?status=all', '?status=sold']) out.push({ url: `/portfolio/listings${q}`, wallet: w });
      for (const q of ['', '?type=claim', '?type=shares_bought', '?type=contribution', '?network_id=10']) {
        for (const page of [1, 2, 3]) out.push({ url: `/portfolio/history${q}${q ? '&' : '?'}limit=3&page=${page}`, wallet: w });
      }
    }
    return out;
  }

  /** An error envelope names its own request (error.request_id, unique per request by design); the rest must match byte for byte. */
  const sameRequest = (raw: string) => raw.replace(/"request_id":"[0-9a-f-]{36}"/, '"request_id":"…"');

  it('every endpoint, filter, sort and page: same status, same bytes', async () => {
    expect(stores.map((s) => s.name)).toEqual(['postgres', 'mongodb']);
    const list = await urls();
    expect(list.length).toBeGreaterThan(500);
    const differences: string[] = [];
    const statuses = new Map<number, number>();
    for (const { url, wallet } of list) {
      const [pg, mongo] = await Promise.all(apis.map((api, i) => api.get(url, keys[i]![wallet]!)));
      statuses.set(pg!.status, (statuses.get(pg!.status) ?? 0) + 1);
      if (pg!.status !== mongo!.status || sameRequest(pg!.raw) !== sameRequest(mongo!.raw))
        differences.push(`${url} (${WALLETS[wallet]}): ${pg!.status} ${pg!.raw.slice(0, 300)}\n  vs ${mongo!.status} ${mongo!.raw.slice(0, 300)}`);
    }
    expect(differences).toEqual([]);
    // The walk covered answers, empty pages, ambiguity (400) and unknown positions (404), not just one kind.
    expect([...statuses.keys()].sort()).toEqual([200, 400, 404]);
  });
});
