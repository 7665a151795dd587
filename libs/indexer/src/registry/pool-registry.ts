import { PoolMetadataUpdated, PoolRegistered, derivedEventId, isEventOf, poolMetadataSchema, poolStreamId, type PoolMetadata } from '@dob/domain';
import { WrongExpectedVersionError, type EventStore, type RecordedEvent } from '@dob/event-store';

export interface RegisterPoolInput {
  readonly networkId: number;
  /** The pool's contract address (splitter, or crowdfunding campaign). */
  readonly pool: string;
  readonly metadata: PoolMetadata;
}

export type RegisterPoolOutcome = 'registered' | 'updated' | 'unchanged';

/**
 * The pool registry command (called by ops and the devnet seeder): off-chain metadata no contract holds.
 * First call appends PoolRegistered; later calls append PoolMetadataUpdated with only the changed fields, or
 * nothing. Optimistic concurrency on the pool stream; a concurrent append (e.g. the indexer) is retried.
 */
export async function registerPool(store: EventStore, input: RegisterPoolInput, clock: () => Date = () => new Date()): Promise<RegisterPoolOutcome> {
  const metadata = poolMetadataSchema.parse(input.metadata);
  const streamId = poolStreamId(input.networkId, input.pool);
  for (let attempt = 0; ; attempt += 1) {
    const events = await store.readStream(streamId);
    const revision = events.length ? events[events.length - 1].revision : -1;
    const current = metadataOf(events);
    const now = clock().toISOString();
    try {
      if (!current) {
        await store.appendToStream(
          streamId,
          [
            {
              id: derivedEventId(input.networkId, input.pool, 'registered'),
              type: PoolRegistered.type,
              version: 1,
              data: PoolRegistered.payload({ network_id: input.networkId, pool: input.pool, ...metadata, registered_at: now }),
              metadata: { source: 'registry' },
            },
          ],
          revision < 0 ? 'no_stream' : revision,
        );
        return 'registered';
      }
      const changes: Partial<PoolMetadata> = {};
      for (const key of Object.keys(metadata) as (keyof PoolMetadata)[]) {
        if (metadata[key] !== current[key]) (changes as Record<string, unknown>)[key] = metadata[key];
      }
      if (Object.keys(changes).length === 0) return 'unchanged';
      await store.appendToStream(
        streamId,
        [
          {
            id: derivedEventId(input.networkId, input.pool, 'metadata', revision, JSON.stringify(changes)),
            type: PoolMetadataUpdated.type,
            version: 1,
            data: PoolMetadataUpdated.payload({ network_id: input.networkId, pool: input.pool, changes, updated_at: now }),
            metadata: { source: 'registry' },
          },
        ],
        revision,
      );
      return 'updated';
    } catch (err) {
      if (!(err instanceof WrongExpectedVersionError) || attempt >= 4) throw err;
    }
  }
}

/** A pool's current registry metadata (PoolRegistered + PoolMetadataUpdated on its stream), or null if unregistered. */
export async function currentPoolMetadata(store: EventStore, networkId: number, pool: string): Promise<PoolMetadata | null> {
  return metadataOf(await store.readStream(poolStreamId(networkId, pool)));
}

function metadataOf(events: readonly RecordedEvent[]): PoolMetadata | null {
  let current: PoolMetadata | null = null;
  for (const e of events) {
    if (isEventOf(e, [PoolRegistered.type])) current = poolMetadataSchema.parse(pick(e.data));
    if (isEventOf(e, [PoolMetadataUpdated.type]) && current) {
      const changes = e.data.changes;
      current = { ...current, ...changes };
    }
  }
  return current;
}

function pick(d: PoolMetadata): PoolMetadata {
  const { name, ticker, access_type, distribution_type, estimated_apr, max_participants, token_to_distribute } = d;
  return { name, ticker, access_type, distribution_type, estimated_apr, max_participants, token_to_distribute };
}
