import { positionToString } from '@dob/event-store';
import { eventTypeCountsProjection } from './event-type-counts.projection';
import { ProjectionSpec } from './testing/projection-specification';

const spec = ProjectionSpec.for(eventTypeCountsProjection);

describe('event type counts projection', () => {
  it('given events of two types, when one more of the first arrives, then it counts per type with the last position', async () => {
    await spec
      .given({ type: 'PoolLocked', data: {} }, { type: 'ApiKeyCreated', data: {} })
      .when({ type: 'PoolLocked', data: {} })
      .then({
        counts: [
          {
            event_type: 'ApiKeyCreated',
            events: 1,
            last_position: positionToString({ commit: 2n, prepare: 2n }),
            last_recorded_at: '1970-01-01T00:00:00.000Z',
          },
          { event_type: 'PoolLocked', events: 2, last_position: positionToString({ commit: 3n, prepare: 3n }), last_recorded_at: '1970-01-01T00:00:00.000Z' },
        ],
      });
  });
});
