import { newDocument, type DocOf, type Fields, type ProjectionDefinition, type ProjectionState } from '@dob/projections';
import { byEventType, type Chain, type EventHandler } from './event-handlers';

/**
 * Crowdfunding campaigns (one crowdfunding contract each) and their contributors. raised_amount follows the
 * contract's own total_raised: contributions add, opt-outs subtract (CF-d+), refunds after failure do not
 * (docs/contracts.md §4.6), and cf_done/cf_expr carry the authoritative totals. `is_active` depends on the clock and
 * is decided at query time (fundraising and deadline not passed). Events of a campaign whose cf_init was never
 * seen change nothing.
 */
export const CAMPAIGNS = 'crowdfunding';

/**
 * A campaign, declared once: CampaignDoc, the store's columns, CampaignRow (the reader's) and the API's plain
 * fields (crowdfunding-queries.ts) follow from these field specs.
 */
export const CAMPAIGN_FIELDS = {
  network_id: 'int',
  address: 'text',
  admin: 'text',
  payment_token: 'text',
  price_per_share: 'amount',
  soft_cap_shares: 'amount',
  hard_cap_shares: 'amount',
  deadline: 'timestamp',
  total_shares_sold: 'amount',
  total_raised: 'amount',
  status: 'text',
  splitter: 'text?',
  created_at: 'timestamp',
} as const satisfies Fields;
export type CampaignDoc = DocOf<typeof CAMPAIGN_FIELDS>;

/** An investor's running totals in one campaign. */
export const CONTRIBUTOR_FIELDS = {
  network_id: 'int',
  campaign: 'text',
  investor: 'text',
  shares: 'amount',
  paid: 'amount',
  refunded: 'amount',
} as const satisfies Fields;
export type ContributorDoc = DocOf<typeof CONTRIBUTOR_FIELDS>;

async function updateCampaign(s: ProjectionState, networkId: number, address: string, change: (c: CampaignDoc) => Partial<CampaignDoc> | null): Promise<void> {
  const current = await s.get<CampaignDoc>('campaigns', { network_id: networkId, address });
  const changed = current && change(current);
  if (current && changed) s.put('campaigns', { ...current, ...changed });
}

async function updateContributor(
  s: ProjectionState,
  c: Chain,
  investor: string,
  create: boolean,
  change: (x: ContributorDoc) => Partial<ContributorDoc>,
): Promise<void> {
  const key = { network_id: c.network_id, campaign: c.contract_id, investor };
  const current = (await s.get<ContributorDoc>('contributors', key)) ?? (create ? newDocument(CONTRIBUTOR_FIELDS, key) : null);
  if (current) s.put('contributors', { ...current, ...change(current) });
}

/** A campaign's end with the contract's authoritative totals (cf_done, cf_expr). */
const setStatus =
  (status: string): EventHandler<'CampaignFinalized' | 'CampaignActivationExpired'> =>
  async (s, e) => {
    const d = e.data;
    const c: Chain = d.chain;
    await updateCampaign(s, c.network_id, c.contract_id, () => ({
      status,
      total_shares_sold: BigInt(d.total_shares_sold),
      total_raised: BigInt(d.total_raised),
    }));
  };

export const campaignsProjection: ProjectionDefinition = {
  name: CAMPAIGNS,
  // v2: a document reducer for both stores.
  version: 2,
  collections: {
    campaigns: {
      fields: CAMPAIGN_FIELDS,
      key: ['network_id', 'address'],
      indexes: [{ keys: ['deadline', 'network_id', 'address'] }, { keys: ['splitter'] }],
    },
    contributors: {
      fields: CONTRIBUTOR_FIELDS,
      key: ['network_id', 'campaign', 'investor'],
      indexes: [{ keys: ['investor'] }],
    },
  },
  ...byEventType({
    async CampaignCreated(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      const key = { network_id: c.network_id, address: c.contract_id };
      if (await s.get('campaigns', key)) return;
      s.put(
        'campaigns',
        newDocument(CAMPAIGN_FIELDS, {
          ...key,
          admin: d.admin,
          payment_token: d.payment_token,
          price_per_share: BigInt(d.price_per_share),
          soft_cap_shares: BigInt(d.soft_cap_shares),
          hard_cap_shares: BigInt(d.hard_cap_shares),
          deadline: d.deadline,
          status: 'fundraising',
          created_at: c.closed_at,
        }),
      );
    },
    async CampaignContributed(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await updateCampaign(s, c.network_id, c.contract_id, (x) => ({
        total_raised: x.total_raised + BigInt(d.payment),
        total_shares_sold: BigInt(d.total_shares_sold),
      }));
      await updateContributor(s, c, d.investor, true, (x) => ({ shares: x.shares + BigInt(d.shares), paid: x.paid + BigInt(d.payment) }));
    },
    async CampaignOptedOut(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await updateCampaign(s, c.network_id, c.contract_id, (x) => ({
        total_raised: x.total_raised - BigInt(d.refund_amount),
        total_shares_sold: x.total_shares_sold - BigInt(d.shares),
      }));
      await updateContributor(s, c, d.investor, false, (x) => ({ shares: x.shares - BigInt(d.shares), paid: x.paid - BigInt(d.refund_amount) }));
    },
    async CampaignFinalized(s, e) {
      await setStatus(e.data.outcome === 'succeeded' ? 'succeeded' : 'failed')(s, e);
    },
    async CampaignActivationProposed(s, e) {
      const c: Chain = e.data.chain;
      await updateCampaign(s, c.network_id, c.contract_id, () => ({ splitter: e.data.splitter }));
    },
    async CampaignActivated(s, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await updateCampaign(s, c.network_id, c.contract_id, () => ({ status: 'activated', splitter: d.splitter, total_raised: BigInt(d.total_raised) }));
    },
    async CampaignActivationCancelled(s, e) {
      const c: Chain = e.data.chain;
      await updateCampaign(s, c.network_id, c.contract_id, () => ({ splitter: null }));
    },
    async CampaignRefunded(s, e) {
      const d = e.data;
      await updateContributor(s, d.chain, d.investor, false, (x) => ({ refunded: x.refunded + BigInt(d.refund_amount) }));
    },
    CampaignActivationExpired: setStatus('failed'),
    async CampaignEffectivelyFailed(s, e) {
      const d = e.data;
      await updateCampaign(s, d.network_id, d.campaign, (x) => (x.status === 'fundraising' ? { status: 'failed' } : null));
    },
  }),
};
