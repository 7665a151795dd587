import type { AddressInfo } from 'node:net';
import { DevnetChain, DEFAULT_RETENTION_LEDGERS, STANDALONE_PASSPHRASE } from './chain/devnet-chain';
import { devnetKeypair, USDC_CODE, usdcIssuer } from './devnet-identities';
import { Faucet, FAUCET_XLM_STROOPS } from './faucet/faucet';
import { createSorobanHost } from './host/soroban-host';
import type { DevnetManifest } from '@dob/devnet-manifest';
import { DEVNET_STAND_IN_WASMS } from './stand-in-wasms';
import { openChainStore } from './persistence/chain-store';
import { createRpcServer } from './rpc/rpc-server';
import { SEED_HISTORY_SECONDS, seedDevnet, type SeededPool } from './seeder/seed-devnet';
import { startCampaignKeeper } from './keeper/campaign-keeper';

export interface StartDevnetOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host?: string;
  /** Chain state and history persist under `<dataDir>/devnet`; without it the chain lives in memory. */
  readonly dataDir?: string;
  /** true or a numeric seed: seed realistic history when the chain is empty. */
  readonly seed?: boolean | number;
  /** With `seed`: keep generating activity until about this many contract events exist (large histories). */
  readonly seedEvents?: number;
  readonly ledgerIntervalMs?: number;
  readonly retentionLedgers?: number;
  /** Finalize seeded campaigns once their deadline passed (default true on a seeded chain). */
  readonly campaignKeeper?: boolean;
}

export interface RunningDevnet {
  readonly rpcUrl: string;
  readonly networkPassphrase: string;
  readonly friendbotUrl: string;
  /** The devnet's test USDC (Stellar Asset Contract). */
  readonly paymentToken: string;
  readonly chain: DevnetChain;
  /** Pool metadata from the seeder (this run or a previous one), empty when not seeded. */
  readonly pools: readonly SeededPool[];
  /** What apps alone need to follow this devnet (GET /devnet/contracts, `<dataDir>/devnet/contracts.json`). */
  readonly manifest: DevnetManifest;
  stop(): Promise<void>;
}

export const DEFAULT_SEED = 20260101;

/** Starts the whole devnet: host, chain, persistence, faucet, RPC server and the ledger close loop. */
export async function startDevnet(options: StartDevnetOptions): Promise<RunningDevnet> {
  const retentionLedgers = options.retentionLedgers ?? DEFAULT_RETENTION_LEDGERS;
  const store = options.dataDir ? await openChainStore(options.dataDir) : undefined;
  const host = createSorobanHost({ networkPassphrase: STANDALONE_PASSPHRASE, ...(store?.snapshot ? { snapshot: store.snapshot.world } : {}) });
  const seedRequested = options.seed !== undefined && options.seed !== false;
  const chain = new DevnetChain({ host, networkPassphrase: STANDALONE_PASSPHRASE, retentionLedgers, ...(store ? { log: store.log } : {}) });
  if (store) await store.restore(chain);
  // A chain about to be seeded starts in the past, so the seeded history ends near wall time.
  if (seedRequested && !chain.history.latest()) chain.setClockOffset(-SEED_HISTORY_SECONDS);

  const issuer = usdcIssuer();
  let paymentToken: string;
  if (!chain.history.latest()) {
    chain.createAccount(issuer.publicKey(), FAUCET_XLM_STROOPS * 1000n);
    paymentToken = chain.deployStellarAsset(USDC_CODE, issuer.publicKey());
    chain.genesis();
  } else {
    paymentToken = host.deployStellarAsset(USDC_CODE, issuer.publicKey(), chain.nextLedgerInfo());
  }
  if (store) store.attach(chain, host);

  let pools: readonly SeededPool[] = store ? await store.readPools() : [];
  if (seedRequested && pools.length === 0 && isFresh(chain)) {
    const result = seedDevnet(chain, {
      seed: typeof options.seed === 'number' ? options.seed : DEFAULT_SEED,
      paymentToken,
      issuer,
      ...(options.seedEvents ? { events: options.seedEvents } : {}),
    });
    pools = result.pools;
    if (store) await store.writePools(pools);
  }
  chain.setClockOffset(0n);

  const faucet = new Faucet(chain, issuer, paymentToken);
  let baseUrl = '';
  // Served once known (it names the bound port).
  const served: { manifest?: DevnetManifest } = {};
  const server = createRpcServer({ chain, retentionLedgers, faucet, publicUrl: () => baseUrl, manifest: () => served.manifest });
  await server.listen({ port: options.port, host: options.host ?? '127.0.0.1' });
  const address = server.server.address() as AddressInfo;
  // Loopback and any-address listeners are announced as localhost (what the README and npm start print).
  const shownHost = !options.host || ['0.0.0.0', '127.0.0.1', '::'].includes(options.host) ? 'localhost' : options.host;
  baseUrl = `http://${shownHost}:${address.port}`;
  const manifest: DevnetManifest = {
    rpcUrl: `${baseUrl}/rpc`,
    networkPassphrase: STANDALONE_PASSPHRASE,
    friendbotUrl: `${baseUrl}/friendbot`,
    paymentToken: { symbol: USDC_CODE, address: paymentToken, decimals: 7 },
    knownWasms: DEVNET_STAND_IN_WASMS,
    pools,
  };
  served.manifest = manifest;
  if (store) await store.writeManifest(manifest);
  const stopKeeper =
    options.campaignKeeper === false
      ? () => undefined
      : startCampaignKeeper(
          chain,
          pools.filter((p) => p.contract_kind === 'crowdfunding_v1').map((p) => p.pool_address),
          devnetKeypair('campaign-keeper'),
        );
  chain.start(options.ledgerIntervalMs ?? 1000);

  return {
    rpcUrl: manifest.rpcUrl,
    networkPassphrase: STANDALONE_PASSPHRASE,
    friendbotUrl: manifest.friendbotUrl,
    paymentToken,
    chain,
    pools,
    manifest,
    async stop() {
      stopKeeper();
      chain.stop();
      await server.close();
      await store?.close();
    },
  };
}

/** Seeding runs only on an empty chain: nothing but genesis. */
function isFresh(chain: DevnetChain): boolean {
  return chain.appliedTransactionCount === 0;
}

export { devnetKeypair };
