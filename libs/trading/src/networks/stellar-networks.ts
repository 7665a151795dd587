import { AppError } from '@dob/domain';

/** A payment token the operator names for a network, so agents can say `USDC` instead of a contract address. */
export interface KnownToken {
  readonly symbol: string;
  readonly address: string;
  readonly decimals: number;
}

export interface StellarNetwork {
  /** The API's network id (docs/agent-api.md#networks): 9 = testnet (the embedded devnet by default), 10 = mainnet. */
  readonly id: number;
  readonly rpcUrl: string;
  readonly passphrase: string;
  /** Base of transaction links, e.g. https://stellar.expert/explorer/testnet — the hash is appended as `/tx/<hash>`. */
  readonly explorerUrl: string;
  readonly tokens?: readonly KnownToken[];
  /** Each RPC call's bound (STELLAR_RPC_TIMEOUT_MS): past it the RPC counts as unreachable. Default 1.5 s. */
  readonly rpcTimeoutMs?: number;
}

/** Only ids 9 and 10 (docs/decisions.md#d5) carry Stellar transaction envelopes; every other id is another chain. */
export const STELLAR_NETWORK_IDS: readonly number[] = [9, 10];

/** The networks trading may use (id → RPC URL, passphrase, explorer). Use cases receive this, never config. */
export class StellarNetworks {
  private readonly byId: ReadonlyMap<number, StellarNetwork>;

  constructor(networks: readonly StellarNetwork[]) {
    for (const n of networks) {
      if (!STELLAR_NETWORK_IDS.includes(n.id)) throw new Error(`network ${n.id} is not a Stellar network id (9 or 10)`);
    }
    this.byId = new Map(networks.map((n) => [n.id, n]));
  }

  /** The network for a request's network_id, or VALIDATION_ERROR (non-Stellar id, or a Stellar id not configured). */
  get(networkId: number): StellarNetwork {
    const network = this.byId.get(networkId);
    if (network) return network;
    if (!STELLAR_NETWORK_IDS.includes(networkId)) {
      throw AppError.validation(`network_id ${networkId} is not a Stellar network: trading uses Stellar transaction envelopes (network_id 9 or 10)`, {
        fields: { network_id: 'must be 9 (Stellar Testnet) or 10 (Stellar Mainnet)' },
      });
    }
    throw AppError.validation(`Stellar network ${networkId} is not configured on this service`, { fields: { network_id: 'network not configured' } });
  }

  get all(): readonly StellarNetwork[] {
    return [...this.byId.values()];
  }
}

export function explorerTxUrl(network: StellarNetwork, hash: string): string {
  return `${network.explorerUrl.replace(/\/+$/, '')}/tx/${hash}`;
}
