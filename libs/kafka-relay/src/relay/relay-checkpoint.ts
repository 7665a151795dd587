import type { LeaseFence } from '@dob/leases';
import { START, comparePositions, positionToString, type EventStore, type GlobalPosition, type RecordedEvent } from '@dob/event-store';
import { matchingEvents, slotReport, type SqlProjectionDefinition, type ProjectionSlot, type ReadModelStore, type SlotState } from '@dob/projections';
import { RELAYED_EVENT_TYPES } from '../analyst-topics';

/**
 * The relay keeps its checkpoint where projections keep theirs (`projection_checkpoints`, through the
 * ReadModelStore port): the same row-locked compare-and-set move (`commitBatch`), so a second relay on the same
 * checkpoint gets a CheckpointConflictError instead of silently moving it backwards. It owns no tables; it is a
 * slot with an empty table list whose "apply" happens on the broker before the move.
 */
export function relayCheckpointName(topicPrefix = ''): string {
  const suffix = topicPrefix
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return suffix ? `kafka_relay_${suffix}` : 'kafka_relay';
}

export function relayCheckpointDefinition(name: string): SqlProjectionDefinition {
  return {
    name,
    version: 1,
    eventTypes: RELAYED_EVENT_TYPES,
    tables: [],
    setup: async () => undefined,
    apply: async () => undefined,
  };
}

export class RelayCheckpoint {
  readonly slot: ProjectionSlot;
  private readonly definition: SqlProjectionDefinition;

  constructor(
    private readonly store: ReadModelStore<SqlProjectionDefinition>,
    name: string,
  ) {
    this.slot = { name, version: 1, generation: 0 };
    this.definition = relayCheckpointDefinition(name);
  }

  /** The stored checkpoint, created at START on first use. */
  async load(): Promise<SlotState> {
    await this.store.init();
    const existing = await this.store.state(this.slot);
    if (existing) return existing;
    await this.store.createSlot(this.definition, this.slot, 'catching_up').catch(async (e) => {
      // Another relay created it first (primary key): theirs is as good as ours.
      if (!(await this.store.state(this.slot))) throw e;
    });
    return (await this.store.state(this.slot))!;
  }

  /** Moves expected → next after the broker acknowledged `published`; CheckpointConflictError if it moved. */
  advance(expected: GlobalPosition, next: GlobalPosition, published: readonly RecordedEvent[], fence?: LeaseFence): Promise<void> {
    return this.store.commitBatch(this.definition, this.slot, expected, next, published, fence);
  }

  markLive(): Promise<void> {
    return this.store.setStatus(this.slot, 'live');
  }

  /** Where the relay stands: checkpoint, events behind the head, and how old the oldest unpublished event is. */
  async status(events: EventStore, now = new Date()): Promise<RelayStatus> {
    await this.store.init();
    const [state, head, stats] = await Promise.all([this.store.state(this.slot), events.headPosition(), events.stats()]);
    const position = state?.position ?? START;
    const report = state ? slotReport(state, head, matchingEvents(this.definition, stats)) : null;
    const oldest = comparePositions(position, head) >= 0 ? undefined : await firstRelayedAfter(events, position);
    return {
      checkpoint: this.slot.name,
      exists: state !== null,
      status: state?.status ?? null,
      position: positionToString(position),
      head: positionToString(head),
      eventsPublished: state?.eventsApplied ?? 0,
      lagEvents: report?.lag ?? matchingEvents(this.definition, stats),
      lagSeconds: oldest ? Math.max(0, (now.getTime() - oldest.recordedAt.getTime()) / 1000) : 0,
      oldestUnpublishedAt: oldest?.recordedAt.toISOString() ?? null,
      updatedAt: state?.updatedAt.toISOString() ?? null,
    };
  }
}

export interface RelayStatus {
  /** Checkpoint row name (`kafka_relay`, or per topic prefix). */
  readonly checkpoint: string;
  readonly exists: boolean;
  readonly status: string | null;
  /** Last position acknowledged by the broker (`commit:prepare`). */
  readonly position: string;
  readonly head: string;
  /** Events of relayed types the relay has moved past (each published at least once). */
  readonly eventsPublished: number;
  readonly lagEvents: number;
  /** Age of the oldest event not yet acknowledged (0 when caught up). */
  readonly lagSeconds: number;
  readonly oldestUnpublishedAt: string | null;
  readonly updatedAt: string | null;
}

/** The first relayed event after `position`: a store may end a filtered page with none (the port allows it), so read on. */
async function firstRelayedAfter(events: EventStore, position: GlobalPosition): Promise<RecordedEvent | undefined> {
  for (let after = position; ;) {
    const page = await events.readAll({ after, maxCount: 1, types: RELAYED_EVENT_TYPES });
    if (page.events.length > 0 || !page.hasMore) return page.events[0];
    after = page.last;
  }
}
