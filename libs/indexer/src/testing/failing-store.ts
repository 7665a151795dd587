import type { EventStore } from '@dob/event-store';

/**
 * The store, but the next call of one of its append methods fails as when the database goes away: before writing
 * anything, or after committing (the answer lost). Later calls go through. For the ingestion and ownership specs.
 */
export function failingOnce(real: EventStore, method: 'appendMany' | 'appendToStream', when: 'before commit' | 'after commit'): EventStore {
  let armed = true;
  const append = real[method].bind(real) as (...args: unknown[]) => Promise<unknown>;
  return Object.create(real, {
    [method]: {
      value: async (...args: unknown[]) => {
        if (!armed) return append(...args);
        armed = false;
        if (when === 'after commit') await append(...args);
        throw new Error('connection terminated unexpectedly');
      },
    },
  }) as EventStore;
}
