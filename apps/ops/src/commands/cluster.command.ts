import type { Command } from 'commander';
import { RelayCheckpoint } from '@dob/kafka-relay';
import { createSqlLeaseStore, type LeaseRecord } from '@dob/leases';
import { ProjectionRunner, createSqlReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import { createFanoutProjection } from '@dob/webhooks';
import { withOpsContext, type OpsContext } from '../ops-context';
import { printTable } from '../print-table';

export interface ClusterOwnership {
  readonly work: string;
  readonly state: 'owned' | 'lapsed';
  readonly owner: LeaseRecord['owner'];
  readonly since: string;
  readonly token: number;
  readonly renewedAt: string;
  readonly expiresAt: string;
  /** Events behind the head (projections, fan-out, relay), ledgers behind (indexer, as its owner reported), or null. */
  readonly lag: string | null;
}

/** Lag of one piece of leased work, read from where that work keeps its checkpoint. */
async function lagOf(ctx: OpsContext, lease: LeaseRecord, projectionLag: Map<string, number>): Promise<string | null> {
  const projection = /^projection:(.+)$/.exec(lease.name)?.[1];
  if (projection !== undefined) return projectionLag.has(projection) ? `${projectionLag.get(projection)} events` : null;
  if (lease.name.startsWith('kafka_relay')) {
    const relay = new RelayCheckpoint(createSqlReadModelStore<SqlProjectionDefinition>(ctx.storage.db), lease.name);
    return `${(await relay.status(ctx.storage.eventStore)).lagEvents} events`;
  }
  const behind = lease.progress?.ledgers_behind;
  return typeof behind === 'number' ? `${behind} ledgers` : null;
}

export async function clusterOwnership(ctx: OpsContext): Promise<ClusterOwnership[]> {
  const leases = createSqlLeaseStore(ctx.storage.db);
  await leases.init();
  const records = await leases.list();
  const fanout = new ProjectionRunner<SqlProjectionDefinition>(ctx.storage.eventStore, createSqlReadModelStore(ctx.storage.db), [createFanoutProjection()]);
  const reports = [...(await ctx.runner.status()), ...(await fanout.status())];
  const projectionLag = new Map(reports.filter((r) => r.active).map((r) => [r.name, r.active!.lag]));
  return Promise.all(
    records.map(async (l) => ({
      work: l.name,
      state: l.lapsed ? ('lapsed' as const) : ('owned' as const),
      owner: l.owner,
      since: l.acquiredAt.toISOString(),
      token: l.token,
      renewedAt: l.renewedAt.toISOString(),
      expiresAt: l.expiresAt.toISOString(),
      lag: await lagOf(ctx, l, projectionLag),
    })),
  );
}

export function registerClusterCommands(program: Command): void {
  const cluster = program.command('cluster').description('several copies of the workers on one database: who owns what');

  cluster
    .command('status')
    .description('every lease: the owning process (app, host, pid), since when, its fencing token, and the lag of its work')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withOpsContext(async (ctx) => {
        const rows = await clusterOwnership(ctx);
        if (opts.json) {
          console.log(JSON.stringify(rows, null, 2));
          return;
        }
        if (rows.length === 0) {
          console.log('no leases: the workers run in one process (npm start, or apps alone on embedded PGlite)');
          return;
        }
        printTable(
          ['work', 'state', 'owner', 'host', 'pid', 'since', 'token', 'lag'],
          rows.map((r) => [r.work, r.state, r.owner.app, r.owner.host, String(r.owner.pid), r.since, String(r.token), r.lag ?? '-']),
        );
      });
    });
}
