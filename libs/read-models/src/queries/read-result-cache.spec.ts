import type { SqlDatabase, SqlResult } from '@dob/sql';
import { createReadResultCache } from './read-result-cache';

/** A database whose every read answers the current `version`, and whose LISTEN connection the test drops and restores. */
function fakeDatabase() {
  const state = { version: 1, reads: 0, onConnection: undefined as ((connected: boolean) => void) | undefined };
  const db: SqlDatabase = {
    kind: 'postgres',
    query: <R>(): Promise<SqlResult<R>> => {
      state.reads++;
      return Promise.resolve({ rows: [{ version: state.version }] as R[], rowCount: 1 });
    },
    exec: () => Promise.resolve(),
    copyIn: () => Promise.resolve(),
    transaction: () => Promise.reject(new Error('not used')),
    listen: (_channel, _onNotify, onConnection) => {
      state.onConnection = onConnection;
      return Promise.resolve(() => Promise.resolve());
    },
    close: () => Promise.resolve(),
  };
  return { db, state };
}

describe('read-result cache when its LISTEN connection is lost (issue 31)', () => {
  const read = async (db: { query: SqlDatabase['query'] }) => (await db.query<{ version: number }>('SELECT version')).rows[0]!.version;

  it('caches nothing while changes cannot be heard, and starts empty once LISTEN is back', async () => {
    const { db, state } = fakeDatabase();
    const cache = await createReadResultCache(db, { maxAgeMs: 600_000 }); // only a notification could make an entry fresh
    expect(await read(cache.db)).toBe(1);
    expect(await read(cache.db)).toBe(1);
    expect(state.reads).toBe(1); // the second answered from memory
    const before = cache.generation;

    state.onConnection!(false);
    expect(cache.generation).toBeUndefined(); // the API's response cache stops too
    state.version = 2; // a change whose notification nobody hears
    expect(await read(cache.db)).toBe(2);
    state.version = 3;
    expect(await read(cache.db)).toBe(3);

    state.onConnection!(true);
    expect(cache.generation).not.toBe(before);
    state.version = 4; // changed between the reconnect and the next read: still read, nothing from before the gap
    expect(await read(cache.db)).toBe(4);
    expect(await read(cache.db)).toBe(4);
    expect(state.reads).toBe(4); // caching again
    await cache.close();
  });
});
