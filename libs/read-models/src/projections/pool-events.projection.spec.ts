import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, chainAt, onChain, POOL, TOKEN } from '../testing/spec-events';
import { poolEventsProjection } from './pool-events.projection';

const spec = ProjectionSpec.for(poolEventsProjection);
const logged = (n: number, type: string, fields: object) => ({
  network_id: 9,
  pool: POOL,
  event_type: type,
  transaction_hash: chainAt(n).tx_hash,
  from_address: null,
  to_address: null,
  amount: null,
  amount_kind: null,
  token: null,
  detail: null,
  date: chainAt(n).closed_at,
  chain_event_id: chainAt(n).event_id,
  ...fields,
});

describe('pool events projection', () => {
  it('given nothing, when a pool initialises, a holder claims and shares move, then the log has one entry each', async () => {
    await spec
      .given()
      .when(
        onChain(1, 'PoolInitialized', {
          pool_version: '1',
          contract_version: '1.2',
          admin: ALICE,
          shares_len: 1,
          mutable: true,
          participation_token: null,
          pool_type: null,
          pool_type_code: null,
        }),
        onChain(2, 'RoundClaimed', { shareholder: BOB, round_id: '3', token: TOKEN, amount: '42' }),
        onChain(3, 'SharesTransferred', { pool: POOL, from: null, to: BOB, shares: '7', reason: 'crowdfunding_allocation' }),
      )
      .then({
        events: [
          logged(1, 'init', { from_address: ALICE, detail: 'V1', event_id: 'event-PoolInitialized-1' }),
          logged(2, 'claim', { from_address: BOB, amount: '42', amount_kind: 'token', token: TOKEN, detail: '3', event_id: 'event-RoundClaimed-2' }),
          // a mint has no sender: the pool is shown as the source
          logged(3, 'transfer_shares', {
            from_address: POOL,
            to_address: BOB,
            amount: '7',
            amount_kind: 'shares',
            detail: 'crowdfunding_allocation',
            event_id: 'event-SharesTransferred-3',
          }),
        ],
      });
  });

  it('given a pool, when its admin changes and it locks, then both are logged', async () => {
    await spec
      .given()
      .when(onChain(1, 'PoolAdminChanged', { previous_admin: ALICE, new_admin: BOB }), onChain(2, 'PoolLocked', {}))
      .then({
        events: [
          logged(1, 'set_admin', { from_address: ALICE, to_address: BOB, event_id: 'event-PoolAdminChanged-1' }),
          logged(2, 'lock', { event_id: 'event-PoolLocked-2' }),
        ],
      });
  });
});
