import type { ProjectionDefinition } from '@dob/projections';
import type { SqlExecutor } from '@dob/sql';
import { applyByType, type Chain, type EventHandler } from './apply-by-type';

/**
 * Crowdfunding campaigns (one crowdfunding contract each) and their contributors. raised_amount follows the
 * contract's own total_raised: contributions add, opt-outs subtract (CF-d+), refunds after failure do not
 * (dob-contracts §4.6), and cf_done/cf_expr carry the authoritative totals. `is_active` depends on the clock and
 * is decided at query time (fundraising and deadline not passed).
 */
export const CAMPAIGNS = 'crowdfunding';

const setStatus = (status: string, totals: boolean): EventHandler => async (tx, t, e) => {
  const d = e.data;
  const c: Chain = d.chain;
  await tx.query(
    `UPDATE ${t.campaigns} SET status = $3 ${totals ? ', total_shares_sold = $4::numeric, total_raised = $5::numeric' : ''}
      WHERE network_id = $1 AND address = $2`,
    totals ? [c.network_id, c.contract_id, status, d.total_shares_sold, d.total_raised] : [c.network_id, c.contract_id, status],
  );
};

export const campaignsProjection: ProjectionDefinition<SqlExecutor> = {
  name: CAMPAIGNS,
  version: 1,
  eventTypes: [
    'CampaignCreated',
    'CampaignContributed',
    'CampaignOptedOut',
    'CampaignFinalized',
    'CampaignActivationProposed',
    'CampaignActivated',
    'CampaignActivationCancelled',
    'CampaignRefunded',
    'CampaignActivationExpired',
    'CampaignEffectivelyFailed',
  ],
  tables: ['campaigns', 'contributors'],
  async setup(tx, t) {
    await tx.exec(`CREATE TABLE ${t.campaigns} (
      network_id        int         NOT NULL,
      address           text        NOT NULL,
      admin             text        NOT NULL,
      payment_token     text        NOT NULL,
      price_per_share   numeric     NOT NULL,
      soft_cap_shares   numeric     NOT NULL,
      hard_cap_shares   numeric     NOT NULL,
      deadline          timestamptz NOT NULL,
      total_shares_sold numeric     NOT NULL DEFAULT 0,
      total_raised      numeric     NOT NULL DEFAULT 0,
      status            text        NOT NULL,
      splitter          text,
      created_at        timestamptz NOT NULL,
      PRIMARY KEY (network_id, address)
    );
    CREATE INDEX ON ${t.campaigns} (deadline, network_id, address);
    CREATE INDEX ON ${t.campaigns} (splitter);
    CREATE TABLE ${t.contributors} (
      network_id int     NOT NULL,
      campaign   text    NOT NULL,
      investor   text    NOT NULL,
      shares     numeric NOT NULL DEFAULT 0,
      paid       numeric NOT NULL DEFAULT 0,
      refunded   numeric NOT NULL DEFAULT 0,
      PRIMARY KEY (network_id, campaign, investor)
    );
    CREATE INDEX ON ${t.contributors} (investor);`);
  },
  apply: applyByType({
    async CampaignCreated(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `INSERT INTO ${t.campaigns} (network_id, address, admin, payment_token, price_per_share, soft_cap_shares,
                                     hard_cap_shares, deadline, status, created_at)
         VALUES ($1, $2, $3, $4, $5::numeric, $6::numeric, $7::numeric, $8, 'fundraising', $9)
         ON CONFLICT (network_id, address) DO NOTHING`,
        [c.network_id, c.contract_id, d.admin, d.payment_token, d.price_per_share, d.soft_cap_shares, d.hard_cap_shares, d.deadline, c.closed_at],
      );
    },
    async CampaignContributed(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `UPDATE ${t.campaigns} SET total_raised = total_raised + $3::numeric, total_shares_sold = $4::numeric
          WHERE network_id = $1 AND address = $2`,
        [c.network_id, c.contract_id, d.payment, d.total_shares_sold],
      );
      await tx.query(
        `INSERT INTO ${t.contributors} (network_id, campaign, investor, shares, paid) VALUES ($1, $2, $3, $4::numeric, $5::numeric)
         ON CONFLICT (network_id, campaign, investor) DO UPDATE
           SET shares = ${t.contributors}.shares + EXCLUDED.shares, paid = ${t.contributors}.paid + EXCLUDED.paid`,
        [c.network_id, c.contract_id, d.investor, d.shares, d.payment],
      );
    },
    async CampaignOptedOut(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `UPDATE ${t.campaigns} SET total_raised = total_raised - $3::numeric, total_shares_sold = total_shares_sold - $4::numeric
          WHERE network_id = $1 AND address = $2`,
        [c.network_id, c.contract_id, d.refund_amount, d.shares],
      );
      await tx.query(
        `UPDATE ${t.contributors} SET shares = shares - $4::numeric, paid = paid - $5::numeric
          WHERE network_id = $1 AND campaign = $2 AND investor = $3`,
        [c.network_id, c.contract_id, d.investor, d.shares, d.refund_amount],
      );
    },
    async CampaignFinalized(tx, t, e) {
      await setStatus(e.data.outcome === 'succeeded' ? 'succeeded' : 'failed', true)(tx, t, e);
    },
    async CampaignActivationProposed(tx, t, e) {
      const c: Chain = e.data.chain;
      await tx.query(`UPDATE ${t.campaigns} SET splitter = $3 WHERE network_id = $1 AND address = $2`, [c.network_id, c.contract_id, e.data.splitter]);
    },
    async CampaignActivated(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `UPDATE ${t.campaigns} SET status = 'activated', splitter = $3, total_raised = $4::numeric WHERE network_id = $1 AND address = $2`,
        [c.network_id, c.contract_id, d.splitter, d.total_raised],
      );
    },
    async CampaignActivationCancelled(tx, t, e) {
      const c: Chain = e.data.chain;
      await tx.query(`UPDATE ${t.campaigns} SET splitter = NULL WHERE network_id = $1 AND address = $2`, [c.network_id, c.contract_id]);
    },
    async CampaignRefunded(tx, t, e) {
      const d = e.data;
      const c: Chain = d.chain;
      await tx.query(
        `UPDATE ${t.contributors} SET refunded = refunded + $4::numeric WHERE network_id = $1 AND campaign = $2 AND investor = $3`,
        [c.network_id, c.contract_id, d.investor, d.refund_amount],
      );
    },
    CampaignActivationExpired: setStatus('failed', true),
    async CampaignEffectivelyFailed(tx, t, e) {
      const d = e.data;
      await tx.query(
        `UPDATE ${t.campaigns} SET status = 'failed' WHERE network_id = $1 AND address = $2 AND status = 'fundraising'`,
        [d.network_id, d.campaign],
      );
    },
  }),
};
