/**
 * What an indexer (or an API, a notifier) needs to follow this devnet, served at `GET /devnet/contracts`, written
 * to `<dataDir>/devnet/contracts.json` and summarised by `npm run start:devnet`: the RPC and passphrase, the test
 * USDC, the stand-in wasm hashes of the builds whose real hash the facts do not publish (without them a devnet
 * V1.3 / V2 pool or participation token cannot be identified), and the seeder's pools with their off-chain
 * metadata (what `npm start` registers in the pool registry). Apps given `DEVNET_URL` read it, so "devnet + apps
 * alone" needs no hand-copied hashes.
 */
export interface DevnetManifest {
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  readonly friendbotUrl: string;
  readonly paymentToken: { readonly symbol: string; readonly address: string; readonly decimals: number };
  readonly knownWasms: readonly DevnetWasm[];
  readonly pools: readonly DevnetPool[];
}

/** A wasm hash and the indexer's name for it (its ContractKind and version, libs/indexer contract-identity.ts). */
export interface DevnetWasm {
  readonly hash: string;
  readonly kind: 'splitter' | 'participation_token';
  readonly version: string;
  readonly label: string;
}

/**
 * A pool the devnet's seeder created, with the off-chain metadata an operator would give the pool registry (what
 * `npm start` registers; libs/indexer registerSeededPools).
 */
export interface DevnetPool {
  readonly pool_address: string;
  readonly contract_kind: string;
  readonly name: string;
  readonly ticker: string;
  readonly access_type: string;
  readonly distribution_type: string;
  readonly estimated_apr: string;
  readonly max_participants: number;
  readonly token_to_distribute: string;
  /** ISO 8601: the seeded creation time, registered as the pool's `created_at`. */
  readonly created_at: string;
  readonly participation_token?: string;
  readonly pool_type?: string;
}

export const DEVNET_MANIFEST_PATH = '/devnet/contracts';

export class DevnetManifestError extends Error {
  override readonly name = 'DevnetManifestError';
}

/**
 * Reads a devnet's manifest from its base URL (e.g. http://localhost:8000), retrying while it is not up yet (apps
 * started together with the devnet) until `waitMs` has passed.
 */
export async function fetchDevnetManifest(devnetUrl: string, o: { waitMs?: number; onWait?: (why: string) => void } = {}): Promise<DevnetManifest> {
  const url = new URL(DEVNET_MANIFEST_PATH, devnetUrl);
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  for (;;) {
    let why: string;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (res.ok) return (await res.json()) as DevnetManifest;
      why = `HTTP ${res.status}`;
      if (res.status === 404) throw new DevnetManifestError(`${url} answered 404: DEVNET_URL must be a devnet started by npm run start:devnet`);
    } catch (e) {
      if (e instanceof DevnetManifestError) throw e;
      why = (e as Error).message;
    }
    if (Date.now() >= deadline) throw new DevnetManifestError(`devnet manifest ${url} unreachable (${why}); is npm run start:devnet running?`);
    o.onWait?.(`waiting for the devnet at ${url} (${why})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
