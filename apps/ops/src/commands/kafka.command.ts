import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { START, isAfter, positionFromString, type GlobalPosition } from '@dob/event-store';
import { OpsError } from '../ops-context';
import { withOperations } from '../operations';
import { printTable } from '../print-table';

/** `beginning` or `commit:prepare`; a position P means "from the event at P, inclusive". */
function parseFrom(text: string): GlobalPosition {
  if (text === 'beginning') return START;
  try {
    return positionFromString(text);
  } catch {
    throw new OpsError(`--from must be "beginning" or a position commit:prepare (as \`kafka status\` prints), got "${text}"`);
  }
}

/** readAll is exclusive of `after`: one sequence number back includes the event at `from` itself. */
const justBefore = (from: GlobalPosition): GlobalPosition => (from.prepare > 0n ? { commit: from.commit, prepare: from.prepare - 1n } : START);

function parseTo(text: string): GlobalPosition {
  try {
    return positionFromString(text);
  } catch {
    throw new OpsError(`--to must be a position commit:prepare, got "${text}"`);
  }
}

export function registerKafkaCommands(program: Command): void {
  const kafka = program.command('kafka').description("the relay to the analysts' Kafka topics (docs/kafka.md)");

  kafka
    .command('status')
    .description('relay checkpoint, events published, lag in events and seconds')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withOperations(async (ops) => {
        const s = await ops.kafkaStatus();
        if (opts.json) {
          console.log(JSON.stringify(s, null, 2));
          return;
        }
        printTable(
          ['checkpoint', 'status', 'position', 'head', 'published', 'lag events', 'lag seconds', 'updated'],
          [
            [
              s.checkpoint,
              s.status ?? '(never ran)',
              s.position,
              s.head,
              String(s.eventsPublished),
              String(s.lagEvents),
              s.lagSeconds.toFixed(1),
              s.updatedAt ?? '-',
            ],
          ],
        );
      });
    });

  kafka
    .command('replay')
    .description('re-publish a range of events (consumers deduplicate by id); the relay checkpoint is left alone')
    .requiredOption('--from <position|beginning>', 'first event to re-publish: "beginning" or commit:prepare')
    .option('--to <position>', 'last event to re-publish (default: the relay checkpoint, i.e. all it published)')
    .action(async (opts: { from: string; to?: string }) => {
      const from = parseFrom(opts.from);
      const to = opts.to ? parseTo(opts.to) : undefined;
      // A backwards range re-published nothing and still said "re-published 0 events" with exit 0: an operator's
      // mistake (swapped positions) looked like success. Refused here, before any connection.
      if (to && isAfter(from, to)) throw new OpsError(`--from ${opts.from} comes after --to ${opts.to}: nothing to re-publish`);
      const after = justBefore(from);
      await withOperations(async (ops) => {
        const bar = new SingleBar({ format: 'replay |{bar}| {percentage}% | {published} events | ETA {eta_formatted}', etaBuffer: 50 }, Presets.shades_classic);
        let started = false;
        const result = await ops
          .kafkaReplay(after, to, ({ published, done, total }) => {
            if (!started) {
              bar.start(total, done, { published });
              started = true;
            }
            bar.update(done, { published });
          })
          .finally(() => bar.stop());
        console.log(`re-published ${result.published} events (${result.after} exclusive → ${result.last})`);
      });
    });
}
