import { positionToString } from '@dob/event-store';
import { toAnalystMessage } from './cloud-event';
import { SAMPLES, SAMPLE_CAMPAIGN, SAMPLE_POOL, recordedSample } from './testing/sample-events';

const sample = (type: string, streamPrefix = '') => {
  const i = SAMPLES.findIndex((s) => s.type === type && s.streamId.startsWith(streamPrefix));
  return recordedSample(SAMPLES[i]!, i);
};

describe('analyst messages (CloudEvents 1.0, structured mode)', () => {
  it('a sale: keyed by its pool, the chain reference and global position as extensions, payload untouched', () => {
    const event = sample('ListingSold');
    const m = toAnalystMessage(event)!;
    const ce = JSON.parse(m.value);
    const chain = (event.data as { chain: { ledger: number; tx_hash: string; event_id: string; closed_at: string } }).chain;
    expect(m).toMatchObject({ topic: 'dob.marketplace.v1', key: SAMPLE_POOL, eventId: event.id });
    expect(ce).toEqual({
      specversion: '1.0',
      id: event.id,
      source: `stellar:9/${SAMPLE_POOL}`,
      type: 'io.dobprotocol.ListingSold.v1',
      subject: SAMPLE_POOL,
      time: chain.closed_at,
      datacontenttype: 'application/json',
      partitionkey: SAMPLE_POOL,
      position: positionToString(event.position),
      ledger: chain.ledger,
      txhash: chain.tx_hash,
      chaineventid: chain.event_id,
      data: event.data,
    });
    expect(ce.data.total_price).toBe('200000000'); // money stays a decimal string
    expect(m.headers).toEqual({ 'content-type': 'application/cloudevents+json; charset=UTF-8', ce_id: event.id, ce_type: ce.type });
  });

  it('a transfer by a token contract names the token as source and the pool as subject', () => {
    const ce = JSON.parse(toAnalystMessage(sample('ParticipationTokenMinted'))!.value);
    expect(ce.source).toMatch(/^stellar:9\/C/);
    expect(ce.source).not.toBe(`stellar:9/${SAMPLE_POOL}`);
    expect(ce.subject).toBe(SAMPLE_POOL);
  });

  it('a derived event (scheduler) has its own time and no chain extensions', () => {
    const event = sample('CampaignEffectivelyFailed');
    const ce = JSON.parse(toAnalystMessage(event)!.value);
    expect(ce).toMatchObject({ source: `stellar:9/${SAMPLE_CAMPAIGN}`, subject: SAMPLE_CAMPAIGN, time: (event.data as { observed_at: string }).observed_at });
    expect(ce).not.toHaveProperty('ledger');
    expect(ce).not.toHaveProperty('txhash');
  });

  it('carries the topic prefix, and nothing for internal events', () => {
    expect(toAnalystMessage(sample('RoundClaimed'), 'staging.')!.topic).toBe('staging.dob.distributions.v1');
    expect(toAnalystMessage({ ...sample('ListingSold'), type: 'IngestionCursorAdvanced', streamId: 'indexer-9' })).toBeNull();
  });
});
