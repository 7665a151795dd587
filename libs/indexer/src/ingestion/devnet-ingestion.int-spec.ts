import { createChainEventCatalog, poolStreamId, campaignStreamId } from '@dob/domain';
import { startDevnet } from '@dob/devnet';
import { createSqlEventStore } from '@dob/event-store';
import { StrKey } from '@stellar/stellar-sdk';
import { createPgliteDatabase } from '@dob/sql';
import type { ContractIdentity } from '../decoding/contract-identity';
import { createStellarChainRpc } from '../rpc/stellar-rpc.adapter';
import { NetworkIngestor } from './network-ingestor';

/** The real path: the seeded devnet over HTTP (stellar-sdk rpc.Server) → decoders → SQL event store on PGlite. */
const KIND: Record<string, Pick<ContractIdentity, 'kind' | 'version'>> = {
  splitter_v1_2: { kind: 'splitter', version: '1.2' },
  splitter_v1_3: { kind: 'splitter', version: '1.3' },
  splitter_v2: { kind: 'splitter', version: '2' },
  crowdfunding_v1: { kind: 'crowdfunding', version: 'unknown' },
};

it('ingests the seeded devnet history of every seeded pool without undecoded events', async () => {
  const devnet = await startDevnet({ port: 0, seed: true, ledgerIntervalMs: 1000 });
  const db = await createPgliteDatabase();
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog() });
  try {
    const rpc = createStellarChainRpc({ rpcUrl: devnet.rpcUrl });
    const health = await rpc.getHealth();
    const contracts = devnet.pools.filter((p) => KIND[p.contract_kind]).map((p) => ({ contractId: p.pool_address, ...KIND[p.contract_kind] }));
    expect(contracts.length).toBeGreaterThan(0);
    // Every pool's instance entry in one getLedgerEntries call, matched to its id; an id never deployed maps to null.
    const neverDeployed = StrKey.encodeContract(Buffer.alloc(32, 7));
    const executables = await rpc.getContractExecutables([neverDeployed, ...devnet.pools.map((p) => p.pool_address)]);
    expect(executables.get(neverDeployed)).toBeNull();
    for (const p of devnet.pools) expect(executables.get(p.pool_address)).toEqual({ kind: 'wasm', hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(new Set(devnet.pools.map((p) => (executables.get(p.pool_address) as { hash: string }).hash)).size).toBeGreaterThan(1);
    const ing = new NetworkIngestor(store, rpc, { networkId: 9, startLedger: health.oldestLedger, contracts, discovery: false });
    for (let i = 0; i < 50 && (await ing.step()) === 'advanced'; i += 1);
    expect(ing.status().state).toBe('live');
    const stats = await store.stats();
    expect(stats.byType.ChainEventUndecoded ?? 0).toBe(0);
    for (const c of contracts) {
      const stream = await store.readStream(c.kind === 'splitter' ? poolStreamId(9, c.contractId) : campaignStreamId(9, c.contractId));
      expect(stream.length).toBeGreaterThan(0);
      expect(stream[0].type).toMatch(/PoolInitialized|CampaignCreated|ParticipationToken|PaymentTokenTransferred/);
    }
  } finally {
    await store.close();
    await db.close();
    await devnet.stop();
  }
});
