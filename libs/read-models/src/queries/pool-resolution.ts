import { AppError } from '@dob/domain';
import type { QueryContext } from './query-context';

/**
 * Finds the network of a pool address. The same contract address can exist on several networks; then the caller
 * must say which (docs/agent-api.md#networks: network_id is required when the address exists on several networks).
 */
export async function resolvePoolNetwork(ctx: QueryContext, address: string, networkId?: number): Promise<number> {
  const networks = await ctx.reader.poolNetworks(address, networkId);
  if (networks.length === 0) throw AppError.notFound(`Pool ${address} not found${networkId === undefined ? '' : ` on network ${networkId}`}`);
  if (networks.length > 1) {
    throw AppError.validation(`network_id is required: pool ${address} exists on networks ${networks.join(', ')}`, {
      fields: { network_id: 'network_id is required for this address' },
    });
  }
  return networks[0]!;
}
