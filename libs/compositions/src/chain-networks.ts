import type { DevnetManifest } from '@dob/devnet-manifest';
import { MAINNET_PASSPHRASE, TESTNET_PASSPHRASE, tokensOf, type AppConfig } from '@dob/runtime';
import type { StellarNetwork } from '@dob/trading';

/**
 * The Stellar networks the API's trading may use (ids 9 and 10 of docs/agent-api.md#networks), from the
 * configuration and, with DEVNET_URL, a devnet's manifest (devnetOf): here rather than in libs/runtime, so the
 * runtime every app loads does not depend on trading.
 */
export function networksOf(
  config: Pick<AppConfig, 'STELLAR_RPC_URL' | 'STELLAR_NETWORK_PASSPHRASE' | 'STELLAR_MAINNET_RPC_URL' | 'STELLAR_TOKENS' | 'STELLAR_RPC_TIMEOUT_MS'>,
  devnet: DevnetManifest | undefined,
): StellarNetwork[] {
  const tokens = tokensOf(config, devnet);
  const networks: StellarNetwork[] = [];
  const rpcUrl = config.STELLAR_RPC_URL ?? devnet?.rpcUrl;
  if (rpcUrl) {
    networks.push({
      id: 9,
      rpcUrl,
      passphrase: config.STELLAR_NETWORK_PASSPHRASE ?? devnet?.networkPassphrase ?? TESTNET_PASSPHRASE,
      explorerUrl: 'https://stellar.expert/explorer/testnet',
      tokens: tokens.filter((t) => t.networkId === 9),
      rpcTimeoutMs: config.STELLAR_RPC_TIMEOUT_MS,
    });
  }
  if (config.STELLAR_MAINNET_RPC_URL) {
    networks.push({
      id: 10,
      rpcUrl: config.STELLAR_MAINNET_RPC_URL,
      passphrase: MAINNET_PASSPHRASE,
      explorerUrl: 'https://stellar.expert/explorer/public',
      tokens: tokens.filter((t) => t.networkId === 10),
      rpcTimeoutMs: config.STELLAR_RPC_TIMEOUT_MS,
    });
  }
  return networks;
}
