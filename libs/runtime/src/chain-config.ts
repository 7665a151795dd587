import { DevnetManifestError, fetchDevnetManifest, type DevnetManifest } from '@dob/devnet-manifest';
import { ConfigError, type AppConfig } from './app-config';

/** Stellar's published passphrases for the network ids 9 (testnet) and 10 (mainnet) of docs/agent-api.md#networks. */
export const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';
export const MAINNET_PASSPHRASE = 'Public Global Stellar Network ; September 2015';

/** A payment token as configured (STELLAR_TOKENS): what the read models' and trading's token types take. */
export type ConfiguredToken = AppConfig['STELLAR_TOKENS'][number];

/**
 * The chain settings apps alone derive from the configuration: with DEVNET_URL the devnet's manifest supplies
 * network 9's RPC, passphrase and test USDC (what `npm start` wires in-process), explicit variables win over it.
 * The networks trading signs for are built from these by libs/compositions (`networksOf`), which may know trading.
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

/** STELLAR_TOKENS, plus the devnet's test USDC on network 9 unless configured otherwise. */
export function tokensOf(config: Pick<AppConfig, 'STELLAR_TOKENS'>, devnet: DevnetManifest | undefined): ConfiguredToken[] {
  const tokens: ConfiguredToken[] = [...config.STELLAR_TOKENS];
  if (devnet && !tokens.some((t) => t.networkId === 9 && t.address === devnet.paymentToken.address)) {
    tokens.push({ networkId: 9, ...devnet.paymentToken });
  }
  return tokens;
}
