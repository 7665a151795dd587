import { DevnetManifestError, fetchDevnetManifest, type DevnetManifest } from '@dob/devnet-manifest';
import type { TokenInfo } from '@dob/read-models';
import type { StellarNetwork } from '@dob/trading';
import { ConfigError, type AppConfig } from './app-config';

/** Stellar's published passphrases for the network ids 9 (testnet) and 10 (mainnet) of docs/agent-api.md#networks. */
export const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';
export const MAINNET_PASSPHRASE = 'Public Global Stellar Network ; September 2015';

/**
 * The chain settings apps alone derive from the configuration: with DEVNET_URL the devnet's manifest supplies
 * network 9's RPC, passphrase and test USDC (what `npm start` wires in-process), explicit variables win over it.
 */
export async function devnetOf(config: Pick<AppConfig, 'DEVNET_URL'>, onWait?: (why: string) => void): Promise<DevnetManifest | undefined> {
  if (!config.DEVNET_URL) return undefined;
  try {
    return await fetchDevnetManifest(config.DEVNET_URL, { onWait });
  } catch (e) {
    if (e instanceof DevnetManifestError) throw new ConfigError(`DEVNET_URL: ${e.message}`);
    throw e;
  }
}

export function networksOf(
  config: Pick<AppConfig, 'STELLAR_RPC_URL' | 'STELLAR_NETWORK_PASSPHRASE' | 'STELLAR_MAINNET_RPC_URL' | 'STELLAR_TOKENS'>,
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
    });
  }
  if (config.STELLAR_MAINNET_RPC_URL) {
    networks.push({
      id: 10,
      rpcUrl: config.STELLAR_MAINNET_RPC_URL,
      passphrase: MAINNET_PASSPHRASE,
      explorerUrl: 'https://stellar.expert/explorer/public',
      tokens: tokens.filter((t) => t.networkId === 10),
    });
  }
  return networks;
}

/** STELLAR_TOKENS, plus the devnet's test USDC on network 9 unless configured otherwise. */
export function tokensOf(config: Pick<AppConfig, 'STELLAR_TOKENS'>, devnet: DevnetManifest | undefined): TokenInfo[] {
  const tokens: TokenInfo[] = [...config.STELLAR_TOKENS];
  if (devnet && !tokens.some((t) => t.networkId === 9 && t.address === devnet.paymentToken.address)) {
    tokens.push({ networkId: 9, ...devnet.paymentToken });
  }
  return tokens;
}
