import type { z } from 'zod';
import type { EventDefinition } from './catalog';

/** A catalog entry at schema version 1 with its payload type attached, so producers get compile-time checks. */
export interface DomainEventDefinition<T> extends EventDefinition<T> {
  /** Identity function that type-checks a payload of this event (the event store validates it again on append). */
  readonly payload: (data: T) => T;
}

export function defineEvent<T>(type: string, schema: z.ZodType<T>): DomainEventDefinition<T> {
  return { type, version: 1, schema, payload: (data) => data };
}

export type PayloadOf<D> = D extends DomainEventDefinition<infer T> ? T : never;
