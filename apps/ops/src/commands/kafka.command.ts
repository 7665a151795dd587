import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { START, positionFromString, positionToString, type GlobalPosition } from '@dob/event-store';
import { RelayCheckpoint, createKafkajsPublisher, kafkaTopicPrefix, loadKafkaRelaySettings, relayCheckpointName, replayRange } from '@dob/kafka-relay';
import { createSqlReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import { OpsError, withOpsContext, type OpsContext } from '../ops-context';
import { printTable } from '../print-table';

const checkpointOf = (ctx: OpsContext, prefix: string) =>
  new RelayCheckpoint(createSqlReadModelStore<SqlProjectionDefinition>(ctx.storage.db), relayCheckpointName(prefix));

/** `beginning` or `commit:prepare`; a position P means "from the event at P, inclusive". */
function parseFrom(text: string): GlobalPosition {
  if (text === 'beginning') return START;
  let p: GlobalPosition;
  try {
    p = positionFromString(text);
  } catch {
    throw new OpsError(`--from must be "beginning" or a position commit:prepare (as \`kafka status\` prints), got "${text}"`);
  }
  // readAll is exclusive of `after`: one sequence number back includes the event at p itself.
  return p.prepare > 0n ? { commit: p.commit, prepare: p.prepare - 1n } : START;
}

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
      await withOpsContext(async (ctx) => {
        const s = await checkpointOf(ctx, kafkaTopicPrefix()).status(ctx.storage.eventStore);
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
      const settings = loadKafkaRelaySettings();
      if (!settings) throw new OpsError('KAFKA_BROKERS is not set: replay needs the brokers to publish to');
      const after = parseFrom(opts.from);
      await withOpsContext(async (ctx) => {
        const status = await checkpointOf(ctx, settings.topicPrefix).status(ctx.storage.eventStore);
        const upTo = opts.to ? parseTo(opts.to) : positionFromString(status.exists ? status.position : status.head);
        const publisher = createKafkajsPublisher({ brokers: settings.brokers, clientId: `${settings.clientId}-replay` });
        // Progress by position: sequence numbers grow along $all, the event count of an arbitrary range does not exist.
        const span = Number(upTo.prepare - (after.prepare < 0n ? 0n : after.prepare));
        const bar = new SingleBar({ format: 'replay |{bar}| {percentage}% | {published} events | ETA {eta_formatted}', etaBuffer: 50 }, Presets.shades_classic);
        bar.start(Math.max(span, 1), 0, { published: 0 });
        try {
          const result = await replayRange({
            events: ctx.storage.eventStore,
            publisher,
            after,
            upTo,
            topicPrefix: settings.topicPrefix,
            batchSize: settings.batchSize,
            onProgress: ({ published, position }) =>
              bar.update(Math.max(0, Number(position.prepare - (after.prepare < 0n ? 0n : after.prepare))), { published }),
          });
          bar.update(Math.max(span, 1), { published: result.published });
          bar.stop();
          console.log(`re-published ${result.published} events (${positionToString(after)} exclusive → ${positionToString(result.last)})`);
        } finally {
          bar.stop();
          await publisher.close();
        }
      });
    });
}
