import type { LearnedToken, ReadModelReader } from './read-model-reader.port';

export interface TokenInfo {
  readonly networkId: number;
  readonly address: string;
  readonly symbol: string;
  readonly decimals: number;
}

/** Stellar Asset Contracts always use 7 decimals (docs/contracts.md §1); unknown SEP-41 tokens are assumed alike. */
export const DEFAULT_DECIMALS = 7;

/** Symbol and decimals of a token (what amounts are formatted with). */
export interface TokenResolver {
  get(networkId: number, address: string | null): { symbol: string | null; decimals: number };
}

export interface TokenLookup extends TokenResolver {
  /** Addresses whose symbol is `symbolOrAddress` (case-insensitive), plus the value itself (an address filter). */
  addressesFor(networkId: number | undefined, symbolOrAddress: string): string[];
}

/**
 * A token as agents see it (token_to_distribute is a token symbol, docs/agent-api.md#vocabulary): registry metadata may name the token by
 * its contract address, which is shown as the symbol the directory knows for it (else the address stays).
 */
export function tokenLabel(tokens: TokenResolver, networkId: number, value: string | null): string | null {
  if (value === null || !/^C[A-Z2-7]{55}$/.test(value)) return value;
  return tokens.get(networkId, value).symbol;
}

/**
 * Token symbols and decimals: configured tokens first, then symbols learned from SAC transfer events (tokens read
 * model), else the contract address stands in for the symbol.
 */
export class TokenDirectory {
  private readonly configured: ReadonlyMap<string, TokenInfo>;

  constructor(
    private readonly reader: Pick<ReadModelReader, 'learnedTokens'>,
    configured: readonly TokenInfo[],
  ) {
    this.configured = new Map(configured.map((t) => [`${t.networkId}/${t.address}`, t]));
  }

  /**
   * One lookup per result of the tokens read model: a cached reader hands out the same frozen rows until the read
   * models change, so the same lookup serves every request in between (and callers can memoise on its identity).
   */
  private readonly lookups = new WeakMap<readonly LearnedToken[], TokenLookup>();

  /** Every known token (one read of the tokens read model): for filters by symbol. */
  async lookup(): Promise<TokenLookup> {
    const rows = await this.reader.learnedTokens();
    let lookup = this.lookups.get(rows);
    if (!lookup) {
      lookup = this.lookupOf(rows);
      this.lookups.set(rows, lookup);
    }
    return lookup;
  }

  private lookupOf(rows: readonly LearnedToken[]): TokenLookup {
    const resolver = this.withLearned(rows);
    const all = new Map<string, { networkId: number; address: string; symbol: string }>();
    for (const r of rows) all.set(`${r.network_id}/${r.address}`, { networkId: r.network_id, address: r.address, symbol: r.symbol });
    for (const [k, t] of this.configured) all.set(k, t);
    return {
      get: resolver.get,
      addressesFor: (networkId, value) => {
        const wanted = value.toUpperCase();
        const out = new Set<string>([value]);
        for (const t of all.values()) {
          if ((networkId === undefined || t.networkId === networkId) && t.symbol.toUpperCase() === wanted) out.add(t.address);
        }
        return [...out].sort();
      },
    };
  }

  /**
   * The tokens of some rows, whose learned symbols the reader joined from the tokens read model (so a page needs
   * no second read). Same precedence as lookup(): configured, then learned (7 decimals), else the address.
   */
  withLearned(learned: Iterable<LearnedToken>): TokenResolver {
    const symbols = new Map<string, string>();
    for (const r of learned) symbols.set(`${r.network_id}/${r.address}`, r.symbol);
    return {
      get: (networkId, address) => {
        if (!address) return { symbol: null, decimals: DEFAULT_DECIMALS };
        const key = `${networkId}/${address}`;
        const configured = this.configured.get(key);
        if (configured) return { symbol: configured.symbol, decimals: configured.decimals };
        return { symbol: symbols.get(key) ?? address, decimals: DEFAULT_DECIMALS };
      },
    };
  }
}
