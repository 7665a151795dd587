import { ProjectionSpec } from '../../../projections/src/testing/projection-specification';
import { ALICE, BOB, onChain, POOL, TOKEN } from '../testing/spec-events';
import { tokensProjection } from './tokens.projection';

const spec = ProjectionSpec.for(tokensProjection);
const paid = (n: number, asset: string | null) =>
  onChain(n, 'PaymentTokenTransferred', { token: TOKEN, party: POOL, from: ALICE, to: BOB, amount: '1', asset }, TOKEN);

describe('tokens projection', () => {
  it('given nothing, when a Stellar Asset Contract transfer names its asset, then the token is learned by its code', async () => {
    await spec
      .given()
      .when(paid(1, 'USDC:GISSUER'))
      .then({ tokens: [{ network_id: 9, address: TOKEN, symbol: 'USDC', asset: 'USDC:GISSUER' }] });
  });

  it('given a learned token, when a later transfer names it otherwise, then the first sighting stays', async () => {
    await spec
      .given(paid(1, 'USDC:GISSUER'))
      .when(paid(2, 'EURC:GOTHER'))
      .then({ tokens: [{ network_id: 9, address: TOKEN, symbol: 'USDC', asset: 'USDC:GISSUER' }] });
  });

  it('given nothing, when the native asset moves, then it is XLM; a transfer without an asset teaches nothing', async () => {
    await spec
      .given(paid(1, null))
      .when(paid(2, 'native'))
      .then({ tokens: [{ network_id: 9, address: TOKEN, symbol: 'XLM', asset: 'native' }] });
  });
});
