import type { Command } from 'commander';
import { positionToString } from '@dob/event-store';
import { withOpsContext } from '../ops-context';
import { printTable } from '../print-table';

export function registerEventCommands(program: Command): void {
  const events = program.command('events').description('inspect the event store');

  events
    .command('stats')
    .description('events, streams, head position and counts by type')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withOpsContext(async ({ storage }) => {
        const [stats, head] = await Promise.all([storage.eventStore.stats(), storage.eventStore.headPosition()]);
        if (opts.json) {
          console.log(JSON.stringify({ ...stats, last: positionToString(stats.last), head: positionToString(head) }, null, 2));
          return;
        }
        console.log(`events  ${stats.events}\nstreams ${stats.streams}\nhead    ${positionToString(head)}\n`);
        const rows = Object.entries(stats.byType)
          .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
          .map(([type, n]) => [type, String(n)]);
        printTable(['event type', 'events'], rows);
      });
    });
}
