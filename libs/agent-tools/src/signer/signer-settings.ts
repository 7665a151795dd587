/** A payment token as this signer knows it: never from the API's words (docs/agents.md, "Threat model"). */
export interface TokenInfo {
  readonly symbol: string;
  readonly decimals: number;
}

/** What the local signer pins from its own configuration, so a compromised API or a man in the middle cannot move it. */
export interface SignerSettings {
  /** The only network it signs for; an envelope signed with it is valid nowhere else. */
  readonly networkPassphrase: string;
  /** Token contract address (C…) → symbol and decimals. Movements of other contracts are refused. */
  readonly tokens: ReadonlyMap<string, TokenInfo>;
  /** Highest total fee (stroops, resource fee included) it signs. */
  readonly maxFeeStroops: bigint;
  /** Latest expiry it signs, in seconds from now: an envelope valid for longer (or forever) is refused. */
  readonly maxValiditySeconds: number;
}

/** Stellar Asset Contracts (every classic asset on Soroban) use 7 decimals (docs/contracts.md §1). */
const SAC_DECIMALS = 7;

/** `USDC=CABC…[:7],EURC=C…`: symbol, token contract and decimals (7 when left out). */
export function parseSignerTokens(text: string | undefined, name = 'DOB_SIGNER_TOKENS'): Map<string, TokenInfo> {
  const out = new Map<string, TokenInfo>();
  for (const entry of (text ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9]{1,12})=(C[A-Z2-7]{55})(?::(\d{1,2}))?$/.exec(entry);
    if (!m) throw new Error(`${name}: "${entry}" is not SYMBOL=C…contract[:decimals] (e.g. USDC=CBIELTK…:7)`);
    const decimals = m[3] === undefined ? SAC_DECIMALS : Number(m[3]);
    if (decimals > 18) throw new Error(`${name}: ${m[1]} has more than 18 decimals`);
    out.set(m[2], { symbol: m[1], decimals });
  }
  return out;
}
