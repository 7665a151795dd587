import { AppError } from '@dob/domain';
import { V, type QueryContext } from './query-context';

/**
 * Finds the network of a pool address. The same contract address can exist on several networks; then the caller
 * must say which (spec: network_id "required when the address exists on several networks").
 */
export async function resolvePoolNetwork(ctx: QueryContext, address: string, networkId?: number): Promise<number> {
  const { rows } = await ctx.db.query<{ network_id: number }>(
    `SELECT network_id FROM ${V.pools} WHERE address = $1 ${networkId === undefined ? '' : 'AND network_id = $2'}
      ORDER BY network_id`,
    networkId === undefined ? [address] : [address, networkId],
  );
  if (rows.length === 0) throw AppError.notFound(`Pool ${address} not found${networkId === undefined ? '' : ` on network ${networkId}`}`);
  if (rows.length > 1) {
    throw AppError.validation(`network_id is required: pool ${address} exists on networks ${rows.map((r) => r.network_id).join(', ')}`, {
      fields: { network_id: 'network_id is required for this address' },
    });
  }
  return rows[0]!.network_id;
}
