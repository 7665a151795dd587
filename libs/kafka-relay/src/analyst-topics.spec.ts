import { walletEvents } from '@dob/auth';
import { campaignStreamId, createChainEventCatalog, indexerStreamId, poolStreamId } from '@dob/domain';
import { ANALYST_TOPICS, INTERNAL_EVENT_TYPES, RELAYED_EVENT_TYPES, brokerTopic, routeEvent } from './analyst-topics';
import { SAMPLE_CAMPAIGN, SAMPLE_POOL, contract } from './testing/sample-events';

describe('analyst topics', () => {
  const catalog = createChainEventCatalog([...walletEvents]);

  it('every event type the system appends is either relayed or internal, never both, never neither', () => {
    const relayed = new Set(RELAYED_EVENT_TYPES);
    const internal = new Set(INTERNAL_EVENT_TYPES);
    expect(catalog.types().filter((t) => relayed.has(t) === internal.has(t))).toEqual([]);
    expect([...relayed, ...internal].filter((t) => !catalog.has(t))).toEqual([]);
    expect(INTERNAL_EVENT_TYPES).toEqual(expect.arrayContaining(['IngestionCursorAdvanced', 'ContractDiscovered', 'ChainEventUndecoded', 'ApiKeyCreated']));
  });

  it('has the four topics of the issue, and only token transfers sit in two of them (by their stream)', () => {
    expect(ANALYST_TOPICS.map((t) => t.topic)).toEqual(['dob.pools.v1', 'dob.marketplace.v1', 'dob.crowdfunding.v1', 'dob.distributions.v1']);
    const inMany = RELAYED_EVENT_TYPES.filter((type) => ANALYST_TOPICS.filter((t) => t.eventTypes.includes(type)).length > 1);
    expect(inMany).toEqual(['PaymentTokenTransferred']);
  });

  it('keys an event by the contract its stream is about, and picks the topic by type', () => {
    expect(routeEvent({ type: 'ListingSold', streamId: poolStreamId(9, SAMPLE_POOL) })).toMatchObject({
      topic: { topic: 'dob.marketplace.v1' },
      key: SAMPLE_POOL,
      networkId: 9,
    });
    expect(routeEvent({ type: 'RoundClaimed', streamId: poolStreamId(10, SAMPLE_POOL) })).toMatchObject({
      topic: { topic: 'dob.distributions.v1' },
      key: SAMPLE_POOL,
      networkId: 10,
    });
    expect(routeEvent({ type: 'CampaignContributed', streamId: campaignStreamId(9, SAMPLE_CAMPAIGN) })?.topic.topic).toBe('dob.crowdfunding.v1');
  });

  it('puts a token transfer where its party is: a campaign’s beside its contributions, a pool’s in pools', () => {
    expect(routeEvent({ type: 'PaymentTokenTransferred', streamId: campaignStreamId(9, SAMPLE_CAMPAIGN) })).toMatchObject({
      topic: { name: 'crowdfunding' },
      key: SAMPLE_CAMPAIGN,
    });
    expect(routeEvent({ type: 'PaymentTokenTransferred', streamId: poolStreamId(9, SAMPLE_POOL) })).toMatchObject({
      topic: { name: 'pools' },
      key: SAMPLE_POOL,
    });
  });

  it('sends internal types and foreign streams nowhere', () => {
    expect(routeEvent({ type: 'IngestionCursorAdvanced', streamId: indexerStreamId(9) })).toBeNull();
    expect(routeEvent({ type: 'ChainEventUndecoded', streamId: `contract-9-${contract(7)}` })).toBeNull();
    expect(routeEvent({ type: 'ApiKeyCreated', streamId: `wallet-G${'A'.repeat(55)}` })).toBeNull();
    expect(routeEvent({ type: 'ListingSold', streamId: 'somewhere-else' })).toBeNull();
  });

  it('prefixes topic names for a deployment', () => {
    expect(brokerTopic(ANALYST_TOPICS[1]!, 'staging.')).toBe('staging.dob.marketplace.v1');
  });
});
