import type { Prng } from './prng';

/** Names and off-chain attributes for seeded pools: realistic-looking, deterministic per seed. */
const PLACES = [
  'Andes',
  'Atacama',
  'Baltic',
  'Coral',
  'Delta',
  'Everest',
  'Fjord',
  'Gobi',
  'Harbor',
  'Iguazu',
  'Jade',
  'Kalahari',
  'Lagoon',
  'Mesa',
  'Nile',
  'Orinoco',
];
const ASSETS = ['Solar Farm', 'Wind Park', 'Charging Hub', 'Battery Bank', 'Hydro Plant', 'Data Center', 'Irrigation Grid', 'Cold Storage'];

export const ACCESS_TYPES = ['rtj', 'p', 'qr', 'stk'] as const;
export const DISTRIBUTION_TYPES = ['tr', 'bt', 'dam'] as const;

export function poolName(rng: Prng, index: number): { name: string; ticker: string } {
  const place = PLACES[index % PLACES.length];
  const asset = rng.pick(ASSETS);
  const name = `${place} ${asset} ${Math.floor(index / PLACES.length) + 1}`;
  const ticker = `${place.slice(0, 3)}${asset
    .split(' ')
    .map((w) => w[0])
    .join('')}${index}`
    .toUpperCase()
    .slice(0, 12);
  return { name, ticker };
}

/** A cap table of `holders` shareholders summing to `total` points (V1: 10,000 = 100 %). */
export function capTable(rng: Prng, holders: number, total: bigint): bigint[] {
  const weights = Array.from({ length: holders }, () => rng.int(1, 100));
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => (BigInt(w) * total) / BigInt(sum));
  const assigned = shares.reduce((a, b) => a + b, 0n);
  shares[0] += total - assigned;
  return shares;
}
