import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, chainAt, offChain, onChain, PARTICIPATION_TOKEN, POOL, TOKEN, v2PoolInitialized } from '../testing/spec-events';
import { poolsProjection } from './pools.projection';

const spec = ProjectionSpec.for(poolsProjection);
const metadata = {
  name: 'Solar Farm',
  ticker: 'SOLAR',
  access_type: 'rtj',
  distribution_type: 'tr',
  estimated_apr: '8.5',
  max_participants: 100,
  token_to_distribute: 'USDC',
};
const registered = offChain('PoolRegistered', { network_id: 9, pool: POOL, ...metadata, registered_at: '2025-12-31T00:00:00.000Z' });
const initialized = v2PoolInitialized(1);
const pool = {
  network_id: 9,
  address: POOL,
  listed: true,
  registered: true,
  ...metadata,
  initialized: false,
  pool_version: null,
  pool_type: null,
  creator_address: null,
  admin: null,
  mutable: null,
  locked: false,
  participation_token: null,
  created_at: '2025-12-31T00:00:00.000Z',
  created_event_id: 'event-PoolRegistered',
  min_interval_seconds: null,
  claim_delay_seconds: null,
  round_expiry_seconds: null,
  schedule_first: null,
  schedule_interval: null,
  schedule_total: null,
  schedule_enabled: false,
  total_distributed: 0n,
  distribution_count: 0,
  last_distribution_at: null,
  distribution_token: null,
};

describe('pools projection', () => {
  it('given nothing, when an operator registers a pool, then it is listed with its metadata from the registry time', async () => {
    await spec
      .given()
      .when(registered)
      .then({ pools: [pool] });
  });

  it('given a registered pool, when its init is first seen, then the init becomes its creation (docs/decisions.md#d3) and it learns the chain facts', async () => {
    await spec
      .given(registered)
      .when(initialized)
      .then({
        pools: [
          {
            ...pool,
            initialized: true,
            pool_version: '2',
            pool_type: 'reward',
            creator_address: ALICE,
            admin: ALICE,
            mutable: true,
            participation_token: PARTICIPATION_TOKEN,
            created_at: chainAt(1).closed_at,
            created_event_id: chainAt(1).event_id,
          },
        ],
      });
  });

  it('given an initialised pool, when the registry updates one field, then only that field changes', async () => {
    const updated = offChain('PoolMetadataUpdated', { network_id: 9, pool: POOL, changes: { estimated_apr: '9' }, updated_at: '2026-01-05T00:00:00.000Z' });
    await spec
      .given(registered)
      .when(updated)
      .then({ pools: [{ ...pool, estimated_apr: '9' }] });
  });

  it('given an unregistered pool, when init is seen, then the init is its creation; a round adds to what it distributed', async () => {
    const round = onChain(2, 'RoundCreated', {
      round_id: '1',
      token: TOKEN,
      total_amount: '500',
      claimable_from: '2026-01-02T00:00:00.000Z',
      expires_at: '2026-01-09T00:00:00.000Z',
      claimable_from_unix: '0',
      expires_at_unix: '0',
    });
    const docs = await spec
      .given(initialized)
      .when(round, onChain(3, 'PoolAdminChanged', { previous_admin: ALICE, new_admin: BOB }))
      .documents();
    expect(docs.pools).toEqual([
      expect.objectContaining({
        registered: false,
        listed: true,
        name: null,
        created_at: chainAt(1).closed_at,
        created_event_id: chainAt(1).event_id,
        admin: BOB,
        creator_address: ALICE,
        total_distributed: 500n,
        distribution_count: 1,
        last_distribution_at: chainAt(2).closed_at,
        distribution_token: TOKEN,
      }),
    ]);
  });
});
