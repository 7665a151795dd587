import type { ProjectionDefinition } from '../projection';
import { ProjectionSpec } from './projection-specification';

/** Writes one document per event it is given, whatever its type: what reaches it is what the filter let through. */
function seeingProjection(eventTypes: readonly string[]): ProjectionDefinition {
  return {
    name: 'seen',
    version: 1,
    eventTypes,
    collections: { seen: { fields: { event_id: 'text', type: 'text' }, key: ['event_id'] } },
    async apply(state, e) {
      state.put('seen', { event_id: e.id, type: e.type });
    },
  };
}

describe('ProjectionSpec filters events as the runner does', () => {
  it('given a projection subscribed to one type, events of another type never reach it', async () => {
    await ProjectionSpec.for(seeingProjection(['PoolLocked']))
      .given({ type: 'PoolLocked', data: {}, id: 'a' }, { type: 'PoolAdminChanged', data: {}, id: 'b' })
      .when({ type: 'PoolAdminChanged', data: {}, id: 'c' }, { type: 'PoolLocked', data: {}, id: 'd' })
      .then({
        seen: [
          { event_id: 'a', type: 'PoolLocked' },
          { event_id: 'd', type: 'PoolLocked' },
        ],
      });
  });

  it('a spec expecting an unsubscribed event to be applied fails (a forgotten subscription is caught)', async () => {
    const spec = ProjectionSpec.for(seeingProjection(['PoolLocked']))
      .given()
      .when({ type: 'PoolAdminChanged', data: {}, id: 'b' });
    await expect(spec.then({ seen: [{ event_id: 'b', type: 'PoolAdminChanged' }] })).rejects.toThrow();
  });

  it('an empty subscription reads every type, as the runner sends no filter then', async () => {
    await ProjectionSpec.for(seeingProjection([]))
      .given({ type: 'PoolLocked', data: {}, id: 'a' })
      .when({ type: 'ApiKeyCreated', data: {}, id: 'b' })
      .then({
        seen: [
          { event_id: 'a', type: 'PoolLocked' },
          { event_id: 'b', type: 'ApiKeyCreated' },
        ],
      });
  });

  it('the events that reach the projection keep their positions in $all', async () => {
    const positions: bigint[] = [];
    const definition: ProjectionDefinition = {
      ...seeingProjection(['PoolLocked']),
      async apply(_state, e) {
        positions.push(e.position.commit);
      },
    };
    await ProjectionSpec.for(definition)
      .given({ type: 'PoolAdminChanged', data: {} }, { type: 'PoolLocked', data: {} })
      .when({ type: 'PoolLocked', data: {} })
      .documents();
    expect(positions).toEqual([2n, 3n]);
  });
});
