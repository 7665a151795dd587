import type { z } from 'zod';
import type { EventDefinition } from './catalog';

/**
 * A catalog entry at schema version 1 with its type name and payload type attached, so producers get compile-time
 * checks and consumers a discriminated union (`EventOf`).
 */
export interface DomainEventDefinition<Type extends string = string, T = unknown> extends EventDefinition<T> {
  readonly type: Type;
  /** Identity function that type-checks a payload of this event (the event store validates it again on append). */
  readonly payload: (data: T) => T;
}

export function defineEvent<const Type extends string, T>(type: Type, schema: z.ZodType<T>): DomainEventDefinition<Type, T> {
  return { type, version: 1, schema, payload: (data) => data };
}

export type PayloadOf<D> = D extends DomainEventDefinition<string, infer T> ? T : never;

/** An event as its consumers see it: a type name and the payload that name stands for (emmett's `Event`). */
export interface Event<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

/** The `Event` a definition describes: `EventOf<typeof PoolLocked>` is `Event<'PoolLocked', {chain: …}>`. */
export type EventOf<D> = D extends DomainEventDefinition<infer Type, infer T> ? Event<Type, T> : never;
