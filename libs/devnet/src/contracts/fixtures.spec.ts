import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Networks, xdr } from '@stellar/stellar-sdk';
import type { ContractKind, InvokeSuccess, LedgerInfo, SorobanHost } from '../host/host.port';
import { createSorobanHost } from '../host/soroban-host';
import { addr, bool, i128, str, struct, u32, u64, vec } from '../host/scval';
import { shareToScVal } from './shared/shares';

/**
 * Replays the scenarios of the four soroban-sdk test snapshots in test/fixtures/dob-contracts (their `auth`
 * arrays list the calls) at the snapshots' own addresses, then compares the last invocation's events with the
 * snapshot's `events` (exact XDR) and our contract storage with the snapshot's ledger entries.
 */
const DIR = join(__dirname, '../../../../test/fixtures/dob-contracts');

interface Fixture {
  ledger: { timestamp: number; ledger_entries: Array<[Record<string, unknown>, [{ data: Record<string, unknown> }, number | null]]> };
  events: Array<{ event: Record<string, unknown> }>;
}

const load = (name: string): Fixture => JSON.parse(readFileSync(`${DIR}/${name}`, 'utf8')) as Fixture;

const A = (suffix: string) => `CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA${suffix}`;
const G = (suffix: string) => `GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA${suffix}`;

class Replay {
  readonly host: SorobanHost = createSorobanHost({ networkPassphrase: Networks.STANDALONE });
  time = 0n;
  seq = 1;
  ledger = (): LedgerInfo => ({ sequence: this.seq, closeTime: this.time, networkPassphrase: Networks.STANDALONE });
  place(kind: ContractKind, id: string, asset?: { code: string; issuer: string }): void {
    this.host.deployContractAt(kind, id, this.ledger(), asset);
  }
  call(contractId: string, fn: string, args: xdr.ScVal[], source = G('GO6V')): InvokeSuccess {
    const r = this.host.invoke({ contractId, fn, args, source, ledger: this.ledger(), authMode: 'record' }, { commit: true });
    if (!r.ok) throw new Error(`${fn}: ${r.message}`);
    return r;
  }
}

function expectEvents(r: InvokeSuccess, f: Fixture): void {
  const expected = f.events.map(({ event }) => {
    const { type_, ...rest } = event as { type_: string };
    return xdr.ContractEvent.fromJson({ ...rest, type: type_ } as never).toXdr('base64');
  });
  expect(r.events.map((e) => e.toXdr('base64'))).toEqual(expected);
}

/** Our value of every contract-data entry the snapshot holds for `contracts` (instance: its storage only). */
function expectStorage(host: SorobanHost, f: Fixture, contracts: readonly string[]): number {
  let compared = 0;
  for (const [key, [{ data }]] of f.ledger.ledger_entries) {
    const cd = (key as { contract_data?: { contract: string; key: unknown } }).contract_data;
    if (!cd || !contracts.includes(cd.contract)) continue;
    const [ours] = host.getLedgerEntries([xdr.LedgerKey.fromJson(key as never)]);
    const theirs = (data as { contract_data: { val: unknown } }).contract_data.val;
    expect(ours).toBeDefined();
    const val = (ours!.entry.toJson() as { contract_data: { val: unknown } }).contract_data.val;
    if (cd.key === 'ledger_key_contract_instance') {
      expect((val as { contract_instance: { storage: unknown } }).contract_instance.storage).toEqual(
        (theirs as { contract_instance: { storage: unknown } }).contract_instance.storage,
      );
    } else expect(val).toEqual(theirs);
    compared++;
  }
  return compared;
}

/** Common setup of the three crowdfunding snapshots: SAC `aaa` whose admin is FCT4, campaign ITA4 (admin D2KM). */
function crowdfundingSetup(contributions: Array<[string, bigint]>): Replay {
  const r = new Replay();
  r.place('stellar_asset', 'CBUSYNQKASUYFWYC3M2GUEDMX4AIVWPALDBYJPNK6554BREHTGZ2IUNF', { code: 'aaa', issuer: G('GO6V') });
  const token = 'CBUSYNQKASUYFWYC3M2GUEDMX4AIVWPALDBYJPNK6554BREHTGZ2IUNF';
  r.call(token, 'set_admin', [addr(A('FCT4'))]);
  r.place('crowdfunding_v1', A('ITA4'));
  r.call(A('ITA4'), 'init', [addr(A('D2KM')), addr(token), i128(100n), i128(1000n), i128(10000n), u64(100000n), u32(0)]);
  r.call(token, 'mint', [addr(A('K3IM')), i128(1_000_000n)]);
  r.call(token, 'mint', [addr(A('MDR4')), i128(1_000_000n)]);
  for (const [who, n] of contributions) r.call(A('ITA4'), 'contribute', [addr(A(who)), i128(n)]);
  // the mock splitter: anything answering get_allocation; here an initialised V1.2 splitter
  r.place('splitter_v1_2', A('OLZM'));
  r.call(A('OLZM'), 'init', [addr(A('D2KM')), vec([shareToScVal({ shareholder: A('D2KM'), share: 10000n })]), bool(true)]);
  r.time = 100_001n;
  r.call(A('ITA4'), 'finalize', []);
  return r;
}

describe('fixtures: crowdfunding_v1 cf-v0.3.0', () => {
  it('the_soft_cap_break_is_announced_as_a_settlement', () => {
    const f = load('the_soft_cap_break_is_announced_as_a_settlement.1.json');
    const r = crowdfundingSetup([
      ['K3IM', 700n],
      ['MDR4', 500n],
    ]);
    r.call(A('ITA4'), 'propose_activation', [addr(A('OLZM'))]);
    expect(r.time).toBe(BigInt(f.ledger.timestamp));
    const last = r.call(A('ITA4'), 'opt_out', [addr(A('K3IM'))]);
    expectEvents(last, f);
    expect(expectStorage(r.host, f, [A('ITA4'), 'CBUSYNQKASUYFWYC3M2GUEDMX4AIVWPALDBYJPNK6554BREHTGZ2IUNF'])).toBe(7);
  });

  it('an_exit_that_lands_exactly_on_the_soft_cap_keeps_the_campaign_alive', () => {
    const f = load('an_exit_that_lands_exactly_on_the_soft_cap_keeps_the_campaign_alive.1.json');
    const r = crowdfundingSetup([
      ['K3IM', 1000n],
      ['MDR4', 200n],
    ]);
    r.call(A('ITA4'), 'propose_activation', [addr(A('OLZM'))]);
    r.call(A('ITA4'), 'opt_out', [addr(A('MDR4'))]);
    r.call(A('ITA4'), 'propose_activation', [addr(A('OLZM'))]);
    const last = r.call(A('ITA4'), 'activate', [addr(A('OLZM'))]);
    expectEvents(last, f);
    expect(expectStorage(r.host, f, [A('ITA4'), 'CBUSYNQKASUYFWYC3M2GUEDMX4AIVWPALDBYJPNK6554BREHTGZ2IUNF'])).toBeGreaterThan(4);
  });

  it('expire_activation_is_permissionless', () => {
    const f = load('expire_activation_is_permissionless.1.json');
    const r = crowdfundingSetup([
      ['K3IM', 700n],
      ['MDR4', 500n],
    ]);
    r.time = BigInt(f.ledger.timestamp);
    const last = r.call(A('ITA4'), 'expire_activation', [], G('NHUF'));
    expectEvents(last, f);
    expect(expectStorage(r.host, f, [A('ITA4')])).toBeGreaterThan(1);
  });
});

describe('fixtures: splitter_v2 d6291db + participation_token', () => {
  it('test_distribution_prevents_double_distribution', () => {
    const f = load('test_distribution_prevents_double_distribution.1.json');
    const r = new Replay();
    const token = 'CACMVW2KK4H5FZDFF2AUCAKQTEJMZZWJUIZF23XMRVYQBSXYLHZ6BKWN';
    const [admin, pool, pt, holder, tokenAdmin, fee] = [A('D2KM'), A('FCT4'), A('HK3M'), A('ITA4'), A('K3IM'), A('OLZM')];
    r.place('participation_token', pt);
    r.call(pt, 'initialize', [addr(pool), u32(0), str('Pool Shares'), str('SHARE')]);
    r.place('splitter_v2', pool);
    r.call(pool, 'init', [addr(admin), vec([shareToScVal({ shareholder: holder, share: 10000n })]), bool(true), addr(pt)]);
    r.call(pool, 'set_distribution_config', [
      struct({ claim_delay_seconds: u64(0n), last_distribution_time: u64(0n), min_interval_seconds: u64(0n), round_expiry_seconds: u64(31_536_000n) }),
    ]);
    r.place('stellar_asset', token, { code: 'aaa', issuer: G('NHUF') });
    r.call(token, 'set_admin', [addr(tokenAdmin)], G('NHUF'));
    r.call(token, 'mint', [addr(pool), i128(10000n)]);
    r.call(token, 'mint', [addr(fee), i128(0n)]);
    r.call(pool, 'set_commission_recipient', [addr(fee)]);
    r.call(pool, 'create_distribution', [addr(token)]);
    r.call(token, 'mint', [addr(pool), i128(5000n)]);
    const last = r.call(pool, 'create_distribution', [addr(token)]);
    expectEvents(last, f);
    expect(expectStorage(r.host, f, [pool, pt, token])).toBe(10);
  });
});
