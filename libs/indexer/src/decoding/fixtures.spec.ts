import { chainDomainEventId } from '@dob/domain';
import { join } from 'node:path';
import { fixtureEvents } from '../testing/snapshot-scval';
import type { ContractIdentity } from './contract-identity';
import { decodeChainEvent } from './decode-chain-event';

/**
 * Decodes the real emitted events of the contracts' own test snapshots (docs/contracts.md §9). They are kept
 * only in the shared folder beside the repository, resolved from the repository root (not the cwd).
 */
const FIXTURES = join(__dirname, '../../../../../shared/chain/fixtures');
const NET = 9;
const CAMPAIGN = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAITA4';
const PAYMENT_SAC = 'CBUSYNQKASUYFWYC3M2GUEDMX4AIVWPALDBYJPNK6554BREHTGZ2IUNF';
const INVESTOR = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAK3IM';
const MOCK_SPLITTER = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAOLZM';
const V2_SPLITTER = 'CAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFCT4';
const REWARD_SAC = 'CACMVW2KK4H5FZDFF2AUCAKQTEJMZZWJUIZF23XMRVYQBSXYLHZ6BKWN';

function decodeAll(file: string, identities: ContractIdentity[]) {
  const byId = new Map(identities.map((i) => [i.contractId, i]));
  return fixtureEvents(join(FIXTURES, file)).map((e) => {
    const identity = byId.get(e.contractId);
    if (!identity) throw new Error(`fixture contract ${e.contractId} has no identity in this test`);
    return { raw: e, result: decodeChainEvent(e, { networkId: NET, identity, identityOf: (c) => byId.get(c) }) };
  });
}

const sac = (contractId: string): ContractIdentity => ({ contractId, kind: 'sac', version: 'cap67' });
const campaign = (version: string): ContractIdentity => ({ contractId: CAMPAIGN, kind: 'crowdfunding', version });

describe('decoders on the real fixtures', () => {
  it('soft-cap break (cf-v0.3.0): refund transfer, cf_optout, cf_done Failed', () => {
    const [transfer, optOut, done] = decodeAll('the_soft_cap_break_is_announced_as_a_settlement.1.json', [campaign('g'), sac(PAYMENT_SAC)]);
    expect(transfer.result.undecodedReason).toBeNull();
    expect(transfer.result.events).toHaveLength(1);
    expect(transfer.result.events[0].streamId).toBe(`campaign-9-${CAMPAIGN}`);
    expect(transfer.result.events[0].event).toMatchObject({
      id: chainDomainEventId(NET, transfer.raw.id, 0),
      type: 'PaymentTokenTransferred',
      version: 1,
      data: {
        token: PAYMENT_SAC,
        party: CAMPAIGN,
        from: CAMPAIGN,
        to: INVESTOR,
        amount: '70000',
        asset: 'aaa:GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGO6V',
      },
    });
    expect(optOut.result.events.map((e) => [e.streamId, e.event.type, e.event.data])).toEqual([
      [
        `campaign-9-${CAMPAIGN}`,
        'CampaignOptedOut',
        {
          chain: {
            network_id: 9,
            contract_id: CAMPAIGN,
            tx_hash: 'ab'.repeat(32),
            ledger: 100,
            event_id: optOut.raw.id,
            closed_at: '2026-08-06T12:00:00.000Z',
          },
          investor: INVESTOR,
          shares: '700',
          refund_amount: '70000',
        },
      ],
    ]);
    expect(done.result.events[0].event.type).toBe('CampaignFinalized');
    expect(done.result.events[0].event.data).toMatchObject({
      outcome: 'failed',
      status_code: 2,
      total_shares_sold: '500',
      total_raised: '50000',
    });
  });

  it('activation (Escrow payout): payout transfer to the splitter and the 3-item cf_actv', () => {
    const [transfer, actv] = decodeAll('an_exit_that_lands_exactly_on_the_soft_cap_keeps_the_campaign_alive.1.json', [campaign('g'), sac(PAYMENT_SAC)]);
    expect(transfer.result.events.map((e) => e.event.data)).toEqual([
      expect.objectContaining({ from: CAMPAIGN, to: MOCK_SPLITTER, amount: '100000', party: CAMPAIGN }),
    ]);
    expect(actv.result.events[0].event).toMatchObject({
      type: 'CampaignActivated',
      data: { splitter: MOCK_SPLITTER, total_raised: '100000', payout_mode: 'escrow' },
    });
  });

  it('the 3-item cf_actv of a payout build is undecodable as a CF-e build (layout checked per wasm version)', () => {
    const [, actv] = decodeAll('an_exit_that_lands_exactly_on_the_soft_cap_keeps_the_campaign_alive.1.json', [campaign('e'), sac(PAYMENT_SAC)]);
    expect(actv.result.events[0].event.type).toBe('ChainEventUndecoded');
    expect(actv.result.undecodedReason).toMatch(/expected a vec of 2 items, got 3/);
  });

  it('expire_activation (CF-f): cf_expr', () => {
    const [expr] = decodeAll('expire_activation_is_permissionless.1.json', [campaign('f')]);
    expect(expr.result.events[0].event).toMatchObject({
      type: 'CampaignActivationExpired',
      data: { total_shares_sold: '1200', total_raised: '120000' },
    });
  });

  it('V2 round creation: commission transfer, dist_com, dist_new with claim window', () => {
    const [transfer, com, round] = decodeAll('test_distribution_prevents_double_distribution.1.json', [
      { contractId: V2_SPLITTER, kind: 'splitter', version: '2' },
      sac(REWARD_SAC),
    ]);
    expect(transfer.result.events.map((e) => [e.streamId, e.event.data])).toEqual([
      [`pool-9-${V2_SPLITTER}`, expect.objectContaining({ from: V2_SPLITTER, to: MOCK_SPLITTER, amount: '25', token: REWARD_SAC })],
    ]);
    expect(com.result.events[0].event).toMatchObject({
      type: 'DistributionCommissionPaid',
      data: { token: REWARD_SAC, recipient: MOCK_SPLITTER, commission: '25' },
    });
    expect(round.result.events[0].streamId).toBe(`pool-9-${V2_SPLITTER}`);
    expect(round.result.events[0].event).toMatchObject({
      type: 'RoundCreated',
      data: {
        round_id: '1',
        token: REWARD_SAC,
        total_amount: '4975',
        claimable_from: '1970-01-01T00:00:00.000Z',
        expires_at: '1971-01-01T00:00:00.000Z',
        claimable_from_unix: '0',
        expires_at_unix: '31536000',
      },
    });
  });

  it('the fixtures re-encode to the base64 XDR listed in docs/contracts.md §9', () => {
    const [, optOut, done] = fixtureEvents(join(FIXTURES, 'the_soft_cap_break_is_announced_as_a_settlement.1.json'));
    expect(optOut.topic.map((t) => t.toXdr('base64'))).toEqual(['AAAADwAAAAljZl9vcHRvdXQAAAA=', 'AAAAEgAAAAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABQ==']);
    expect(optOut.value.toXdr('base64')).toBe('AAAAEAAAAAEAAAACAAAACgAAAAAAAAAAAAAAAAAAArwAAAAKAAAAAAAAAAAAAAAAAAERcA==');
    expect(done.value.toXdr('base64')).toBe('AAAAEAAAAAEAAAADAAAAAwAAAAIAAAAKAAAAAAAAAAAAAAAAAAAB9AAAAAoAAAAAAAAAAAAAAAAAAMNQ');
  });

  it('a replay produces the same ids (deterministic uuid v5)', () => {
    const a = decodeAll('expire_activation_is_permissionless.1.json', [campaign('f')]);
    const b = decodeAll('expire_activation_is_permissionless.1.json', [campaign('f')]);
    expect(a[0].result.events[0].event.id).toBe(b[0].result.events[0].event.id);
    expect(a[0].result.events[0].event.id).toMatch(/^[0-9a-f-]{36}$/);
  });
});
