import type { Command } from 'commander';
import type { PoolMetadata } from '@dob/domain';
import { currentPoolMetadata, registerPool } from '@dob/indexer';
import { OpsError, withOpsContext } from '../ops-context';
import { parseAddress, parseInteger } from './arguments';

interface RegisterOptions {
  network: string;
  name?: string;
  ticker?: string;
  accessType?: string;
  distributionType?: string;
  apr?: string;
  maxParticipants?: string;
  token?: string;
}

/**
 * The pool registry from the command line: off-chain metadata no contract holds (name, ticker, access and
 * distribution type, APR, participant cap, distributed token). Calls `registerPool` (libs/indexer), which appends
 * PoolRegistered the first time and PoolMetadataUpdated with only the changed fields afterwards; the indexer then
 * watches the pool (its wasm hash must be a known Dob build). On an update, options left out keep their values;
 * `none` clears the nullable ones (--apr, --max-participants, --token).
 */
export function registerPoolCommands(program: Command): void {
  const pools = program.command('pools').description('the pool registry (off-chain pool metadata)');

  pools
    .command('register <address>')
    .description('register a pool (or campaign) address, or update its metadata')
    .requiredOption('--network <id>', 'network id (e.g. 9 = Stellar Testnet)')
    .option('--name <text>', 'display name')
    .option('--ticker <text>', 'short ticker')
    .option('--access-type <code>', 'access type (e.g. rtj, p, qr, stk)')
    .option('--distribution-type <code>', 'distribution type (e.g. tr, bt, dam)')
    .option('--apr <percent>', 'estimated APR as a decimal percent ("8.5"), or none')
    .option('--max-participants <n>', 'participant cap, or none')
    .option('--token <address>', 'token distributed to holders (C… address or code), or none')
    .action(async (address: string, opts: RegisterOptions) => {
      const networkId = parseInteger(opts.network, '--network', 0);
      const pool = parseAddress(address, 'C', 'pool address');
      await withOpsContext(async ({ storage }) => {
        const current = await currentPoolMetadata(storage.eventStore, networkId, pool);
        const metadata = mergeMetadata(current, opts);
        const outcome = await registerPool(storage.eventStore, { networkId, pool, metadata });
        const what = { registered: 'registered', updated: 'updated metadata of', unchanged: 'no change to' }[outcome];
        console.log(`${what} pool ${pool} on network ${networkId}: ${metadata.name} (${metadata.ticker})`);
      });
    });
}

function mergeMetadata(current: PoolMetadata | null, o: RegisterOptions): PoolMetadata {
  const text = (v: string | undefined, name: string, keep: string | undefined): string => {
    const value = v?.trim() ?? keep;
    if (!value) throw new OpsError(`${name} is required to register a new pool`);
    return value;
  };
  const nullable = <T>(v: string | undefined, keep: T | null, parse: (s: string) => T): T | null =>
    v === undefined ? keep : v.trim().toLowerCase() === 'none' ? null : parse(v.trim());
  const metadata: PoolMetadata = {
    name: text(o.name, '--name', current?.name),
    ticker: text(o.ticker, '--ticker', current?.ticker),
    access_type: text(o.accessType, '--access-type', current?.access_type),
    distribution_type: text(o.distributionType, '--distribution-type', current?.distribution_type),
    estimated_apr: nullable(o.apr, current?.estimated_apr ?? null, (s) => {
      if (!/^\d+(\.\d+)?$/.test(s)) throw new OpsError(`--apr must be a decimal percent like 8.5, got "${s}"`);
      return s;
    }),
    max_participants: nullable(o.maxParticipants, current?.max_participants ?? null, (s) => parseInteger(s, '--max-participants', 1)),
    token_to_distribute: nullable(o.token, current?.token_to_distribute ?? null, (s) => s),
  };
  if (metadata.name.length > 200) throw new OpsError('--name must be at most 200 characters');
  if (metadata.ticker.length > 32) throw new OpsError('--ticker must be at most 32 characters');
  return metadata;
}
