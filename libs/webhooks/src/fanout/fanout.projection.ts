import { saleAddress } from '@dob/domain';
import type { RecordedEvent } from '@dob/event-store';
import type { SqlProjectionDefinition } from '@dob/projections';
import { handledEvents } from '@dob/read-models';
import { appendToFeed } from '../feed/feed-log';
import { deliveryId } from '../ids';
import { SqlDeliveryQueue, type NewDelivery } from '../store/delivery-queue';
import { endWebhooksOfKey } from '../store/webhook-store';
import { createLookupTables, FanoutLookups, LOOKUP_TABLES, type KnownToken } from './fanout-lookups';
import * as payloads from './payloads';
import type { Notification } from './payloads';

/** NOTIFY channel the fan-out signals on; PostgreSQL delivers it at COMMIT, so a woken worker sees the rows. */
export const DELIVERIES_CHANNEL = 'webhook_deliveries_enqueued';

/** The wallet aggregate's (libs/auth): a revoked key's webhooks end here, in order with the events they would get. */
const KEY_REVOKED = 'ApiKeyRevoked';

/** ApiKeyRevoked's fields this projection needs (the event is libs/auth's: wallet.events.ts). */
function revokedKeyOf(event: RecordedEvent): { keyId: string; wallet: string; at: Date } | null {
  if (event.type !== KEY_REVOKED) return null;
  const d = event.data as { key_id?: unknown; wallet?: unknown; revoked_at?: unknown };
  if (typeof d.key_id !== 'string' || typeof d.wallet !== 'string') return null;
  return { keyId: d.key_id, wallet: d.wallet, at: typeof d.revoked_at === 'string' ? new Date(d.revoked_at) : event.recordedAt };
}

/**
 * The notifier's fan-out: a checkpointed projection (libs/projections) whose apply maps domain events to the
 * webhook events and inserts one delivery row per (event, active subscribed webhook) into the durable queue — in
 * the same transaction as its checkpoint. A crash before COMMIT loses nothing (the batch is re-read); after COMMIT
 * nothing is enqueued twice (the checkpoint moved, and ids are deterministic besides).
 *
 * Every notification is also appended to the agents' event feed (feed/feed-log.ts), in the same transaction.
 *
 * A webhook receives events recorded after it was registered (created_at ≤ recordedAt), which also keeps a rebuild
 * of this projection from sending history to webhooks that did not exist then.
 *
 * ApiKeyRevoked ends the key's webhooks (endWebhooksOfKey: inactive for good, pending deliveries failed) in the same
 * transaction; events of the same batch are then fanned out to active webhooks only, so from the batch holding the
 * revocation on, nothing more is queued for them (issue 29: a revoked key's webhooks deliver nothing).
 */
export function createFanoutProjection(options: { now?: () => Date; tokens?: readonly KnownToken[] } = {}): SqlProjectionDefinition {
  const now = options.now ?? (() => new Date());
  return {
    name: 'webhook_fanout',
    version: 1,
    eventTypes: fanoutEventTypes(),
    tables: LOOKUP_TABLES,
    batchSize: 500,
    setup: (tx, t) => createLookupTables(tx, t),
    async apply(tx, events, t) {
      const lookups = new FanoutLookups(tx, t, options.tokens);
      const notes: { event: RecordedEvent; note: Notification }[] = [];
      for (const event of events) {
        const revoked = revokedKeyOf(event);
        if (revoked) {
          await endWebhooksOfKey(tx, revoked);
          continue;
        }
        const note = (await FOLDS.handle(lookups, event)) ?? null;
        if (note) notes.push({ event, note });
      }
      if (notes.length === 0) return;
      // The agents' event feed gets every notification, subscribed or not (feed/feed-log.ts).
      await appendToFeed(tx, notes);
      const { rows: hooks } = await tx.query<{ id: string; events: string[]; created_at: Date | string }>(
        `SELECT id, events, created_at FROM webhooks WHERE is_active`,
      );
      const deliveries: NewDelivery[] = [];
      for (const { event, note } of notes) {
        for (const h of hooks) {
          if (!h.events.includes(note.event) || new Date(h.created_at) > event.recordedAt) continue;
          const id = deliveryId(event.id, h.id);
          deliveries.push({
            id,
            webhookId: h.id,
            eventId: event.id,
            eventType: note.event,
            body: JSON.stringify({ event: note.event, timestamp: note.timestamp, delivery_id: id, data: note.data }),
          });
        }
      }
      if (deliveries.length === 0) return;
      await SqlDeliveryQueue.enqueue(tx, deliveries, now());
      await tx.query(`SELECT pg_notify($1, $2)`, [DELIVERIES_CHANNEL, String(deliveries.length)]);
    },
  };
}

/**
 * Per domain event type: how it updates the lookups and the notification it causes, if any. The fan-out's
 * subscription is these keys (fanoutEventTypes), so a folded type is always read and a read type always folded.
 */
const FOLDS = handledEvents<FanoutLookups, Promise<Notification | null>>({
  async PoolRegistered(l, event) {
    const e = event.data;
    await l.upsertPool(e.network_id, e.pool, {
      name: e.name,
      ticker: e.ticker,
      access_type: e.access_type,
      distribution_type: e.distribution_type,
    });
    return null;
  },
  async PoolMetadataUpdated(l, event) {
    const e = event.data;
    const c = e.changes;
    const fields: Record<string, string | null> = {};
    if (c.name !== undefined) fields.name = c.name;
    if (c.ticker !== undefined) fields.ticker = c.ticker;
    if (c.access_type !== undefined) fields.access_type = c.access_type;
    if (c.distribution_type !== undefined) fields.distribution_type = c.distribution_type;
    await l.upsertPool(e.network_id, e.pool, fields);
    return null;
  },
  async PoolInitialized(l, event) {
    const e = event.data;
    const first = await l.announcePool(e.chain.network_id, e.chain.contract_id, e.pool_version);
    return first ? payloads.poolCreated(e, { pool: await l.pool(e.chain.network_id, e.chain.contract_id) }) : null;
  },
  async PaymentTokenTransferred(l, event) {
    const e = event.data;
    await l.rememberToken(e.chain.network_id, e.token, e.asset);
    return null;
  },
  ParticipationTokenMinted: (l, event) => addSupply(l, event.data, 1n),
  ParticipationTokenBurned: (l, event) => addSupply(l, event.data, -1n),
  ParticipationTokenClawedBack: (l, event) => addSupply(l, event.data, -1n),
  async RoundCreated(l, event) {
    const e = event.data;
    const net = e.chain.network_id;
    const pool = e.chain.contract_id;
    return payloads.distributionCreated(e, {
      pool: await l.pool(net, pool),
      token: await l.token(net, e.token),
      totalShares: await l.totalShares(net, pool),
    });
  },
  async DistributionCompleted(l, event) {
    const e = event.data;
    const net = e.chain.network_id;
    const pool = e.chain.contract_id;
    const roundId = await l.nextV1Round(net, pool);
    return payloads.distributionCreatedV1(e, {
      pool: await l.pool(net, pool),
      token: await l.token(net, e.token),
      totalShares: await l.totalShares(net, pool),
      roundId,
    });
  },
  async RoundClaimAvailable(l, event) {
    const e = event.data;
    return payloads.claimAvailable(e, {
      pool: await l.pool(e.network_id, e.pool),
      token: await l.token(e.network_id, e.token),
      totalShares: await l.totalShares(e.network_id, e.pool),
    });
  },
  async SharesTransferred(l, event) {
    const e = event.data;
    return payloads.sharesTransferred(e, { pool: await l.pool(e.chain.network_id, e.pool) });
  },
  async ListingCreated(l, event) {
    const e = event.data;
    const net = e.chain.network_id;
    const sale = saleAddress(net, e.pool, e.seller, e.chain.event_id);
    await l.setListing(net, e.pool, e.seller, sale);
    return payloads.listingCreated(e, { pool: await l.pool(net, e.pool), token: await l.token(net, e.payment_token), saleAddress: sale });
  },
  async ListingSold(l, event) {
    const e = event.data;
    const net = e.chain.network_id;
    return payloads.saleCompleted(e, {
      pool: await l.pool(net, e.pool),
      token: await l.token(net, e.payment_token),
      saleAddress: await l.listing(net, e.pool, e.seller),
    });
  },
  async CampaignCreated(l, event) {
    const e = event.data;
    await l.createCampaign(e.chain.network_id, e.chain.contract_id, e.payment_token, e.price_per_share, e.soft_cap_shares);
    return null;
  },
  async CampaignContributed(l, event) {
    const e = event.data;
    await l.addContribution(e.chain.network_id, e.chain.contract_id, e.investor, BigInt(e.shares));
    return null;
  },
  async CampaignOptedOut(l, event) {
    const e = event.data;
    await l.addContribution(e.chain.network_id, e.chain.contract_id, e.investor, -BigInt(e.shares));
    return null;
  },
  async CampaignFinalized(l, event) {
    const e = event.data;
    const net = e.chain.network_id;
    const campaign = e.chain.contract_id;
    const outcome = e.outcome === 'succeeded' ? 'finalized' : 'failed';
    const s = await l.settleCampaign(net, campaign, outcome);
    if (!s.first) return null;
    const figures = await campaignFigures(l, net, campaign, s);
    return outcome === 'finalized'
      ? payloads.crowdfundingFinalized(e, figures)
      : payloads.crowdfundingFailed({ networkId: net, campaign, totalRaised: e.total_raised, at: e.chain.closed_at }, figures);
  },
  async CampaignEffectivelyFailed(l, event) {
    const e = event.data;
    const s = await l.settleCampaign(e.network_id, e.campaign, 'failed');
    if (!s.first) return null;
    const figures = await campaignFigures(l, e.network_id, e.campaign, s);
    return payloads.crowdfundingFailed({ networkId: e.network_id, campaign: e.campaign, totalRaised: e.total_raised, at: e.observed_at }, figures);
  },
});

/** What the fan-out reads: the folded domain event types, and the revocations that end a key's webhooks. */
export const fanoutEventTypes = (): readonly string[] => [...FOLDS.eventTypes, KEY_REVOKED];

/** A participation token's supply moves by its amount: up for a mint, down (sign -1) for a burn or clawback. */
async function addSupply(l: FanoutLookups, e: { chain: { network_id: number }; pool?: string | null; amount: string }, sign: 1n | -1n): Promise<null> {
  if (e.pool) await l.addSupply(e.chain.network_id, e.pool, sign * BigInt(e.amount));
  return null;
}

async function campaignFigures(
  l: FanoutLookups,
  net: number,
  campaign: string,
  s: { paymentToken: string | null; target: bigint; contributors: number },
): Promise<payloads.CampaignFigures> {
  return {
    pool: await l.pool(net, campaign),
    token: s.paymentToken ? await l.token(net, s.paymentToken) : { symbol: 'unknown', decimals: 7 },
    targetAmount: s.target,
    contributorCount: s.contributors,
  };
}
