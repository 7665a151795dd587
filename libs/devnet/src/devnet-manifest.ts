import { WASM_HASHES } from './host/wasm-hashes';
import type { SeededPool } from './seeder/seed-devnet';

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
  readonly pools: readonly SeededPool[];
}

/** A wasm hash and the indexer's name for it (its ContractKind and version, libs/indexer contract-identity.ts). */
export interface DevnetWasm {
  readonly hash: string;
  readonly kind: 'splitter' | 'participation_token';
  readonly version: string;
  readonly label: string;
}

export const DEVNET_STAND_IN_WASMS: readonly DevnetWasm[] = [
  { hash: WASM_HASHES.splitter_v1_3, kind: 'splitter', version: '1.3-admin', label: 'devnet splitter V1.3' },
  { hash: WASM_HASHES.splitter_v2, kind: 'splitter', version: '2', label: 'devnet splitter V2' },
  { hash: WASM_HASHES.participation_token, kind: 'participation_token', version: '0.2', label: 'devnet participation token' },
];

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
