import type { RecordedEvent } from '@dob/event-store';
import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import type { ProjectionDefinition } from '@dob/projections';
import type { ChainEventType } from '@dob/domain';
import { byEventType, handledEvents, type EventHandler, type EventHandlers } from './event-handlers';

const SEEN = { seen: { fields: { event_id: 'text', type: 'text' }, key: ['event_id'] } } as const;

/** A read model that records the events its handlers are given. */
const recording = (handlers: EventHandlers): ProjectionDefinition => ({ name: 'seen', version: 1, collections: SEEN, ...byEventType(handlers) });

/** A stored event of this type (its id the type's name). */
const event = (type: string): RecordedEvent => ({
  id: type,
  streamId: 's',
  revision: 0,
  type,
  version: 1,
  data: {},
  metadata: {},
  position: { commit: 1n, prepare: 1n },
  recordedAt: new Date(0),
});

/** One handler for any type: the union's handler fits every key. */
const record: EventHandler<ChainEventType> = (s, e) => s.put('seen', { event_id: e.id, type: e.type });

describe('handlers declared as a map over the event union', () => {
  it('subscribe to exactly the types they handle', () => {
    const definition = recording({ PoolLocked: record, ListingSold: record });
    expect([...definition.eventTypes].sort()).toEqual(['ListingSold', 'PoolLocked']);
  });

  it('given a map without a type, the spec feeding that type shows the projection never sees it', async () => {
    await ProjectionSpec.for(recording({ PoolLocked: record }))
      .given({ type: 'PoolLocked', data: {}, id: 'a' })
      .when({ type: 'PoolAdminChanged', data: {}, id: 'b' })
      .then({ seen: [{ event_id: 'a', type: 'PoolLocked' }] });
  });

  it('a hand-kept subscription that forgot a handled type fails its spec (the drift the map prevents)', async () => {
    const drifted: ProjectionDefinition = { ...recording({ PoolLocked: record, PoolAdminChanged: record }), eventTypes: ['PoolLocked'] };
    const spec = ProjectionSpec.for(drifted).given().when({ type: 'PoolAdminChanged', data: {}, id: 'b' });
    await expect(spec.then({ seen: [{ event_id: 'b', type: 'PoolAdminChanged' }] })).rejects.toThrow();
  });

  it('refuses an empty map, whose empty subscription would read every type', () => {
    expect(() => handledEvents({})).toThrow(/at least one event type/);
  });

  it('hands an event only to the handler of its type, and answers undefined for others', () => {
    const handled = handledEvents<string[], string>({ PoolLocked: (seen, e) => (seen.push(e.id), 'locked') });
    const seen: string[] = [];
    expect(handled.handle(seen, event('PoolLocked'))).toBe('locked');
    expect(handled.handle(seen, event('PoolAdminChanged'))).toBeUndefined();
    expect(handled.handle(seen, event('ApiKeyCreated'))).toBeUndefined();
    expect(seen).toEqual(['PoolLocked']);
  });

  it("apply always answers a promise: the handler's own, a settled one for a handler that returns nothing, a rejection for one that throws", async () => {
    const own = Promise.resolve();
    const { apply } = byEventType({
      PoolLocked: () => own,
      ListingSold: () => undefined,
      PoolAdminChanged: () => {
        throw new Error('poison');
      },
    });
    const state = {} as Parameters<typeof apply>[0];
    expect(apply(state, event('PoolLocked'))).toBe(own);
    await expect(apply(state, event('ListingSold'))).resolves.toBeUndefined();
    const thrown = apply(state, event('PoolAdminChanged')); // no synchronous throw
    await expect(thrown).rejects.toThrow('poison');
    await expect(apply(state, event('ApiKeyCreated'))).resolves.toBeUndefined();
  });
});
