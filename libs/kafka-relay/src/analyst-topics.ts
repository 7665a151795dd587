import { crowdfundingEvents, distributionEvents, indexerEvents, marketplaceEvents, poolEvents, registryEvents, tokenEvents, unknownEvents } from '@dob/domain';
import { walletEvents } from '@dob/auth';
import type { RecordedEvent } from '@dob/event-store';

/**
 * The four topics analysts subscribe to. Names carry a major version (`.v1`): a change a consumer could trip on
 * (a removed field, a new key) goes to `.v2` beside the old topic, never into it.
 */
export type AnalystTopicName = 'pools' | 'marketplace' | 'crowdfunding' | 'distributions';

export interface AnalystTopic {
  readonly name: AnalystTopicName;
  /** Kafka topic name without the deployment's prefix. */
  readonly topic: string;
  readonly summary: string;
  /** Event types this topic carries. */
  readonly eventTypes: readonly string[];
}

const typesOf = (defs: readonly { type: string }[]) => defs.map((d) => d.type);

/**
 * Token transfers (`PaymentTokenTransferred`) are appended to the stream of the pool or campaign that is a party
 * (libs/indexer sac.decoder): they follow that stream, so a campaign's payments sit in one partition beside its
 * contributions and refunds, and a pool's deposits beside its rounds' lifecycle.
 */
const FOLLOWS_ITS_STREAM = typesOf(tokenEvents);

export const ANALYST_TOPICS: readonly AnalystTopic[] = [
  {
    name: 'pools',
    topic: 'dob.pools.v1',
    summary:
      'Pool lifecycle (initialisation, admin, lock, schedule, registry metadata), share tables and share ' +
      'movements, participation-token ledger, payment-token transfers of pools.',
    eventTypes: [...typesOf(poolEvents), ...typesOf(registryEvents), ...FOLLOWS_ITS_STREAM],
  },
  {
    name: 'marketplace',
    topic: 'dob.marketplace.v1',
    summary: 'Secondary market: listings created and cancelled, sales (buyer, shares, price).',
    eventTypes: typesOf(marketplaceEvents),
  },
  {
    name: 'crowdfunding',
    topic: 'dob.crowdfunding.v1',
    summary:
      'Campaigns: creation, contributions, opt-outs, refunds, finalisation, activation into a pool, ' +
      'effective failure, payment-token transfers of campaigns.',
    eventTypes: [...typesOf(crowdfundingEvents), ...FOLLOWS_ITS_STREAM],
  },
  {
    name: 'distributions',
    topic: 'dob.distributions.v1',
    summary: 'Distribution rounds (V2) and V1 distributions: creation, commission, allocations, claims, ' + 'withdrawals, reclaims, claim availability.',
    eventTypes: typesOf(distributionEvents),
  },
];

/**
 * Event types that stay inside the system: the indexer's own bookkeeping (cursor, discoveries), the alarm for
 * chain events no decoder understood, and the service-owned wallet aggregate (API key hashes are not analytics).
 */
export const INTERNAL_EVENT_TYPES: readonly string[] = [...typesOf(indexerEvents), ...typesOf(unknownEvents), ...typesOf(walletEvents)];

/** Every type the relay publishes (the server-side filter of its subscription). */
export const RELAYED_EVENT_TYPES: readonly string[] = [...new Set(ANALYST_TOPICS.flatMap((t) => t.eventTypes))];

const topicByType = new Map<string, AnalystTopic>();
for (const t of ANALYST_TOPICS) for (const type of t.eventTypes) if (!FOLLOWS_ITS_STREAM.includes(type)) topicByType.set(type, t);
const topicByName = new Map(ANALYST_TOPICS.map((t) => [t.name, t]));

/** `pool-9-C…`, `campaign-9-C…`, `token-9-C…` (libs/domain stream-ids): the contract a stream is about. */
const STREAM = /^(pool|campaign|token|contract)-(\d+)-(C[A-Z2-7]{55})$/;

export interface EventRoute {
  readonly topic: AnalystTopic;
  /** Message key: the pool's (or campaign's, or orphan token's) contract address — one stream, one partition. */
  readonly key: string;
  readonly networkId: number;
}

/**
 * Where an event goes, or null for types analysts do not get. The key is the contract the event's stream is
 * about: every event of one pool shares a key, so Kafka's key hashing keeps them in one partition, in order.
 */
export function routeEvent(event: Pick<RecordedEvent, 'type' | 'streamId'>): EventRoute | null {
  const stream = STREAM.exec(event.streamId);
  if (!stream) return null;
  const [, category, network, address] = stream;
  const topic = FOLLOWS_ITS_STREAM.includes(event.type) ? topicByName.get(category === 'campaign' ? 'crowdfunding' : 'pools') : topicByType.get(event.type);
  return topic ? { topic, key: address!, networkId: Number(network) } : null;
}

/** Topic name as created on the broker: an optional deployment prefix (e.g. `staging.`) + the analyst name. */
export function brokerTopic(topic: AnalystTopic, prefix = ''): string {
  return `${prefix}${topic.topic}`;
}
