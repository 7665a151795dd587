/** Stellar network ids of docs/agent-api.md#networks (the ids are internal; the chain knows networks by passphrase). */
export const CHAIN_NAMES: Readonly<Record<number, string>> = { 9: 'Stellar Testnet', 10: 'Stellar Mainnet' };

export function chainName(networkId: number): string {
  return CHAIN_NAMES[networkId] ?? `Network ${networkId}`;
}
