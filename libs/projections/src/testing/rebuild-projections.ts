import type { EventStore } from '@dob/event-store';
import type { ProjectionDefinition } from '../projection';

/** Two projections over one stream of `test.counted` events, for the stores' rebuild specs (SQL and MongoDB). */
export const ACCOUNTS = 20;
export const EVENTS = 2_000;

/** The account a `test.counted` event (appendCounted) names. */
const accountOf = (e: { data: unknown }): string => (e.data as { account: string }).account;

/** Every event adds to its account's count: a reducer that reads each document it writes, all of them hot. */
export const counting: ProjectionDefinition = {
  name: 'counting',
  version: 1,
  eventTypes: ['test.counted'],
  collections: { counts: { fields: { account: 'text', n: 'int' }, key: ['account'] } },
  async apply(state, e) {
    const account = accountOf(e);
    const before = await state.get<{ account: string; n: number }>('counts', { account });
    state.put('counts', { account, n: (before?.n ?? 0) + 1 });
  },
};

/** The key `logging` writes for event i: its own, but every 50th event (past the first 140) that of event i − 140. */
const logKey = (i: number): string => `k${i % 50 === 49 && i > 140 ? i - 140 : i}`;

/**
 * One document per event's key, never read back: new rows, but every 50th event writes the key of one two pages before
 * again (the row is taken by then).
 */
export const logging: ProjectionDefinition = {
  name: 'logging',
  version: 1,
  eventTypes: ['test.counted'],
  collections: { log: { fields: { key: 'text', account: 'text', n: 'int' }, key: ['key'] } },
  async apply(state, e) {
    const i = Number.parseInt(e.id.slice(-12), 16);
    state.put('log', { key: logKey(i), account: accountOf(e), n: i });
  },
};

/** One document per event, keyed by its id, never read and never replaced: a collection only ever added to. */
export const recording: ProjectionDefinition = {
  name: 'recording',
  version: 1,
  eventTypes: ['test.counted'],
  collections: { entries: { fields: { event: 'text', account: 'text' }, key: ['event'] } },
  async apply(state, e) {
    state.put('entries', { event: e.id, account: accountOf(e) });
  },
};

/**
 * One document per event, read before it is written (absent: n = 1), so a build's write-outs hold new documents only;
 * a resumed build reads the server, where a document left by a write-out that was never checkpointed shows as n = 2.
 */
export const tallying: ProjectionDefinition = {
  name: 'tallying',
  version: 1,
  eventTypes: ['test.counted'],
  collections: { seen: { fields: { event: 'text', n: 'int' }, key: ['event'] } },
  async apply(state, e) {
    const before = await state.get<{ event: string; n: number }>('seen', { event: e.id });
    state.put('seen', { event: e.id, n: (before?.n ?? 0) + 1 });
  },
};

/** From this event on, lateReading's reducer reads the notes it wrote before without reading them. */
const LATE_READS_FROM = 1_500;
const noteKey = (i: number) => `k${i % 400}`;

/**
 * Notes written by a reducer that does not read them, then read and rewritten from some event on: a rebuild whose
 * cache forgot them while nobody read them must not read a copy on the server older than what it has written.
 */
export const lateReading: ProjectionDefinition = {
  name: 'late_reading',
  version: 1,
  eventTypes: ['test.counted'],
  collections: { notes: { fields: { key: 'text', n: 'int' }, key: ['key'] } },
  async apply(state, e) {
    const i = Number.parseInt(e.id.slice(-12), 16);
    if (i < LATE_READS_FROM) return state.put('notes', { key: noteKey(i), n: i });
    const before = await state.get<{ key: string; n: number }>('notes', { key: noteKey(i) });
    state.put('notes', { key: noteKey(i), n: (before?.n ?? -1_000_000) + 1 });
  },
};

/** The `notes` lateReading leaves: key → n. */
export function expectedNotes(): Map<string, number> {
  const notes = new Map<string, number>();
  for (let i = 0; i < EVENTS; i++) notes.set(noteKey(i), i < LATE_READS_FROM ? i : (notes.get(noteKey(i)) ?? -1_000_000) + 1);
  return notes;
}

/** EVENTS `test.counted` events, one stream each, the accounts in turn. */
export async function appendCounted(events: EventStore): Promise<void> {
  const appends = Array.from({ length: EVENTS }, (_, i) => ({
    streamId: `counted-${i}`,
    events: [{ id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, type: 'test.counted', version: 1, data: { account: `a${i % ACCOUNTS}` } }],
  }));
  for (let i = 0; i < appends.length; i += 500) await events.appendMany(appends.slice(i, i + 500));
}

/** The `log` documents `logging` leaves: key → the n of the last event that wrote it. */
export function expectedLog(events = EVENTS): Map<string, number> {
  const expected = new Map<string, number>();
  for (let i = 0; i < events; i++) expected.set(logKey(i), i);
  return expected;
}
