import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { ProjectionReport, SlotReport } from '@dob/projections';
import { withOperations } from '../operations';
import type { RebuildOutcome } from '../operations.port';
import { OpsError } from '../ops-context';
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

/**
 * A bar per projection being built (several at once when a group is built side by side), each with its events/s and
 * ETA, removed when it switches; a switch's line is printed as it happens, so an interrupted `--all` has already
 * said which projections switched.
 */
class RebuildProgressBars {
  // Drawn on a terminal only (in a pipe or a log the bars would be noise, and cli-progress still writes newlines).
  private readonly bars = process.stderr.isTTY
    ? new MultiBar(
        { format: '{name} |{bar}| {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}', etaBuffer: 50 },
        Presets.shades_classic,
      )
    : undefined;
  private readonly shown = new Map<string, SingleBar>();
  /** Per projection, where this run began: its rate (a resumed build starts from what it had already applied). */
  private readonly first = new Map<string, { at: number; applied: number }>();

  update(name: string, p: { applied: number; total: number }): void {
    if (!this.first.has(name)) this.first.set(name, { at: Date.now(), applied: p.applied });
    if (!this.bars) return;
    let bar = this.shown.get(name);
    if (!bar) this.shown.set(name, (bar = this.bars.create(p.total, p.applied, { name, rate: 0 })));
    const first = this.first.get(name)!;
    const seconds = (Date.now() - first.at) / 1000;
    bar.setTotal(p.total);
    bar.update(p.applied, { name, rate: seconds > 0 ? Math.round((p.applied - first.applied) / seconds) : 0 });
  }

  switched(name: string, line: string): void {
    const bar = this.shown.get(name);
    if (bar) this.bars?.remove(bar);
    this.shown.delete(name);
    // With other bars still drawn, their next redraw prints the line above them.
    if (this.bars && this.shown.size) this.bars.log(`${line}\n`);
    else {
      this.bars?.stop();
      console.log(line);
    }
  }

  stop(): void {
    this.bars?.stop();
  }
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
    .command('rebuild [names...]')
    .description(
      'zero-downtime rebuild: build fresh tables beside the serving ones, switch atomically when caught up; ' +
        'several names (or --all) are built one after another, each switch overlapping the next build',
    )
    .option('--all', 'every registered projection')
    .action(async (names: string[], opts: { all?: boolean }) => {
      await withOperations(async (ops) => {
        if (opts.all && names.length) throw new OpsError('pass projection names or --all, not both');
        const chosen = opts.all ? (await ops.projectionStatus()).map((p) => p.name) : names;
        if (chosen.length === 0) throw new OpsError('name the projections to rebuild, or pass --all');
        const bar = new RebuildProgressBars();
        const report = (name: string, result: RebuildOutcome) => {
          const from = result.from ? `v${result.from.version} g${result.from.generation}` : 'nothing';
          bar.switched(name, `switched ${name} to v${result.to.version} g${result.to.generation} (from ${from}), ${result.eventsApplied} events applied`);
        };
        try {
          await ops.rebuildAll(chosen, (name, p) => bar.update(name, p), report);
        } finally {
          bar.stop();
        }
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
