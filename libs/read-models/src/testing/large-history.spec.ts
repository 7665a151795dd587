import { createChainEventCatalog } from '@dob/domain';
import { readModelProjections } from '../projections';
import { largeHistory, type LargeHistoryOptions } from './large-history';

const SMALL: LargeHistoryOptions = { seed: 5, events: 30_000, pools: 60, wallets: 1000 };
const flat = (o: LargeHistoryOptions) => [...largeHistory(o)].flat(2);
const events = (o: LargeHistoryOptions) => flat(o).flatMap((a) => a.events);

/** Emitted by the scheduler from time, not by a chain history. */
const NOT_FROM_CHAIN = new Set(['CampaignEffectivelyFailed', 'CampaignActivationExpired', 'PoolScheduleDisabled', 'ParticipationTokenClawedBack']);

describe('largeHistory', () => {
  it('is the same history for the same seed, another for another seed', () => {
    const a = events(SMALL).map((e) => e.id);
    expect(events(SMALL).map((e) => e.id)).toEqual(a);
    expect(events({ ...SMALL, seed: 6 }).map((e) => e.id)).not.toEqual(a);
    expect(new Set(a).size).toBe(a.length);
    expect(a.length).toBeGreaterThanOrEqual(SMALL.events);
  });

  it('packs into appendMany calls with each stream once per call', () => {
    for (const calls of largeHistory(SMALL)) {
      for (const call of calls) expect(new Set(call.map((a) => a.streamId)).size).toBe(call.length);
    }
  });

  it('every event is valid against the chain catalog and every chain event kind the read models handle occurs', () => {
    const catalog = createChainEventCatalog();
    const all = events(SMALL);
    const invalid = all.map((e) => catalog.validate(e.type, e.version, e.data)).filter((issue) => issue !== null);
    expect(invalid).toEqual([]);
    const handled = new Set(readModelProjections.flatMap((p) => p.eventTypes).filter((t) => !NOT_FROM_CHAIN.has(t)));
    const seen = new Set(all.map((e) => e.type));
    expect([...handled].filter((t) => !seen.has(t))).toEqual([]);
  });
});
