import type { SqlExecutor } from '@dob/sql';
import { readModelView } from './query-context';

export interface TokenInfo {
  readonly networkId: number;
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** Stellar Asset Contracts always use 7 decimals (dob-contracts §1); unknown SEP-41 tokens are assumed alike. */
export const DEFAULT_DECIMALS = 7;

export interface TokenLookup {
  get(networkId: number, address: string | null): { symbol: string | null; decimals: number };
  /** Addresses whose symbol is `symbolOrAddress` (case-insensitive), plus the value itself (an address filter). */
  addressesFor(networkId: number | undefined, symbolOrAddress: string): string[];
}

/**
 * A token as agents see it (spec: token_to_distribute is a token symbol): registry metadata may name the token by
 * its contract address, which is shown as the symbol the directory knows for it (else the address stays).
 */
export function tokenLabel(tokens: TokenLookup, networkId: number, value: string | null): string | null {
  if (value === null || !/^C[A-Z2-7]{55}$/.test(value)) return value;
  return tokens.get(networkId, value).symbol;
}

/**
 * Token symbols and decimals: configured tokens first, then symbols learned from SAC transfer events (tokens read
 * model), else the contract address stands in for the symbol.
 */
export class TokenDirectory {
  constructor(
    private readonly db: SqlExecutor,
    private readonly configured: readonly TokenInfo[],
  ) {}

  async lookup(): Promise<TokenLookup> {
    const { rows } = await this.db.query<{ network_id: number; address: string; symbol: string }>(
      `SELECT network_id, address, symbol FROM ${readModelView('tokens', 'tokens')}`,
    );
    const map = new Map<string, { symbol: string; decimals: number; networkId: number; address: string }>();
    for (const r of rows) map.set(`${r.network_id}/${r.address}`, { symbol: r.symbol, decimals: DEFAULT_DECIMALS, networkId: r.network_id, address: r.address });
    for (const t of this.configured) map.set(`${t.networkId}/${t.address}`, { ...t });
    return {
      get: (networkId, address) => {
        if (!address) return { symbol: null, decimals: DEFAULT_DECIMALS };
        const t = map.get(`${networkId}/${address}`);
        return t ? { symbol: t.symbol, decimals: t.decimals } : { symbol: address, decimals: DEFAULT_DECIMALS };
      },
      addressesFor: (networkId, value) => {
        const wanted = value.toUpperCase();
        const out = new Set<string>([value]);
        for (const t of map.values()) {
          if ((networkId === undefined || t.networkId === networkId) && t.symbol.toUpperCase() === wanted) out.add(t.address);
        }
        return [...out].sort();
      },
    };
  }
}
