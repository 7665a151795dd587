import { createChainEventCatalog } from '@dob/domain';
import type { StreamAppend } from '@dob/event-store';
import { readModelProjections } from '../projections';
import { expectSameDocuments } from '../../../projections/src/testing/same-documents';
import { largeHistory, type LargeHistoryOptions } from './large-history';

const SMALL: LargeHistoryOptions = { seed: 5, events: 30_000, pools: 60, wallets: 1000 };
const eventsOf = (calls: StreamAppend[][][]) => calls.flat(2).flatMap((a) => a.events);
const events = (o: LargeHistoryOptions) => eventsOf([...largeHistory(o)]);
/**
 * SMALL's history generated once for the tests that only read it (each generation is about a second of CPU under
 * Jest); the first test still generates it a second time on its own to show the same seed gives the same history.
 */
let small: StreamAppend[][][] | undefined;
const smallCalls = () => (small ??= [...largeHistory(SMALL)]);
const smallEvents = () => eventsOf(smallCalls());

/** Emitted by the scheduler from time, not by a chain history. */
const NOT_FROM_CHAIN = new Set(['CampaignEffectivelyFailed', 'CampaignActivationExpired', 'PoolScheduleDisabled', 'ParticipationTokenClawedBack']);

describe('largeHistory', () => {
  it('is the same history for the same seed, another for another seed', () => {
    const a = smallEvents().map((e) => e.id);
    // 30,000 ids: toEqual's verdict, without its per-element cost when they are equal (same-documents.ts).
    expectSameDocuments(
      'ids',
      events(SMALL).map((e) => e.id),
      a,
    );
    expect(events({ ...SMALL, seed: 6 }).map((e) => e.id)).not.toEqual(a);
    expect(new Set(a).size).toBe(a.length);
    expect(a.length).toBeGreaterThanOrEqual(SMALL.events);
  });

  it('packs into appendMany calls with each stream once per call', () => {
    for (const calls of smallCalls()) {
      for (const call of calls) expect(new Set(call.map((a) => a.streamId)).size).toBe(call.length);
    }
  });

  it('every event is valid against the chain catalog and every chain event kind the read models handle occurs', () => {
    const catalog = createChainEventCatalog();
    const all = smallEvents();
    const invalid = all.map((e) => catalog.validate(e.type, e.version, e.data)).filter((issue) => issue !== null);
    expect(invalid).toEqual([]);
    const handled = new Set(readModelProjections.flatMap((p) => p.eventTypes).filter((t) => !NOT_FROM_CHAIN.has(t)));
    const seen = new Set(all.map((e) => e.type));
    expect([...handled].filter((t) => !seen.has(t))).toEqual([]);
  });
});
