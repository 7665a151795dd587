import { SingleBar, Presets } from 'cli-progress';
import type { Command } from 'commander';
import type { ProjectionReport, SlotReport } from '@dob/projections';
import { withOperations } from '../operations';
import { printTable } from '../print-table';

const slotLabel = (s: SlotReport) => `v${s.slot.version}${s.slot.generation ? ` g${s.slot.generation}` : ''}`;

function statusRows(reports: readonly ProjectionReport[]): string[][] {
  const rows: string[][] = [];
  for (const p of reports) {
    const a = p.active;
    rows.push([
      p.name,
      a ? slotLabel(a) : `(v${p.definitionVersion} not built)`,
      a?.status ?? '-',
      a ? String(a.eventsApplied) : '-',
      a ? String(a.lag) : '-',
      a?.position ?? '-',
      a?.fault
        ? `${a.fault.error} (event ${a.fault.eventId ?? '?'} at ${a.fault.position ? `${a.fault.position.commit}:${a.fault.position.prepare}` : '?'})`
        : '',
    ]);
    const b = p.building;
    if (b) rows.push([`  ↳ building`, slotLabel(b), b.status, String(b.eventsApplied), String(b.lag), b.position, b.fault?.error ?? '']);
  }
  return rows;
}

export function registerProjectionCommands(program: Command): void {
  const projections = program.command('projections').description('inspect and operate the read-model projections');

  projections
    .command('status')
    .description('status, checkpoint and lag (events behind the head) of every registered projection')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withOperations(async (ops) => {
        const reports = await ops.projectionStatus();
        if (opts.json) {
          // Fault positions hold bigints: JSON carries them as decimal strings.
          console.log(JSON.stringify(reports, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2));
          return;
        }
        printTable(['projection', 'serving', 'status', 'applied', 'lag', 'position', 'error'], statusRows(reports));
      });
    });

  projections
    .command('rebuild <name>')
    .description('zero-downtime rebuild: build fresh tables beside the serving ones, switch atomically when caught up')
    .action(async (name: string) => {
      await withOperations(async (ops) => {
        const bar = new SingleBar(
          { format: `${name} |{bar}| {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}`, etaBuffer: 50 },
          Presets.shades_classic,
        );
        // The rate of this run (a resumed build starts from what it had already applied).
        let first: { at: number; applied: number } | undefined;
        const result = await ops
          .rebuild(name, (p) => {
            if (!first) {
              first = { at: Date.now(), applied: p.applied };
              bar.start(p.total, p.applied, { rate: 0 });
            }
            const seconds = (Date.now() - first.at) / 1000;
            bar.setTotal(p.total);
            bar.update(p.applied, { rate: seconds > 0 ? Math.round((p.applied - first.applied) / seconds) : 0 });
          })
          .finally(() => bar.stop());
        const from = result.from ? `v${result.from.version} g${result.from.generation}` : 'nothing';
        console.log(`switched ${name} to v${result.to.version} g${result.to.generation} (from ${from}), ${result.eventsApplied} events applied`);
      });
    });

  projections
    .command('reset <name>')
    .description('empty the serving tables and replay from the start (model is partial until caught up; prefer rebuild)')
    .action(async (name: string) => {
      await withOperations(async (ops) => {
        await ops.reset(name);
        console.log(`reset ${name}: checkpoint at START; the projector replays it`);
      });
    });

  projections
    .command('retry <name>')
    .description('clear a faulted projection so the projector resumes it from its checkpoint')
    .action(async (name: string) => {
      await withOperations(async (ops) => {
        await ops.retry(name);
        console.log(`cleared the fault of ${name}; the projector resumes it from its checkpoint`);
      });
    });
}
