import type { SqlDatabase } from '@dob/sql';
import { storageDependencies } from './dependencies';

const EXITED = new Error('the PGlite worker thread exited (code 1)');
/** A database whose every call would fail, as the PGlite worker's once its thread died; it says so in `failed`. */
const database = (kind: SqlDatabase['kind'], failed?: () => Error | null) => ({ kind, failed, query: () => Promise.reject(EXITED) }) as unknown as SqlDatabase;

describe('storageDependencies', () => {
  it('reports a PGlite whose thread died as down (required: /health 503), known without a query', async () => {
    let failure: Error | null = null;
    const deps = storageDependencies({ db: database('pglite', () => failure) });
    expect(Object.keys(deps)).toEqual(['pglite']);
    expect(deps.pglite!.optional).toBeUndefined();
    await expect(deps.pglite!.probe()).resolves.toBeUndefined(); // alive: no query queued behind PGlite's work
    failure = EXITED;
    await expect(deps.pglite!.probe()).rejects.toThrow('thread exited');
  });

  it('has no PGlite component for a database on the caller thread, which cannot die apart from the process', () => {
    expect(storageDependencies({ db: database('pglite') })).toEqual({});
  });

  it('names a server database postgresql, and MongoDB beside it when the read models live there', () => {
    const deps = storageDependencies({ db: database('postgres') }, { ping: async () => 'pong' });
    expect(Object.keys(deps)).toEqual(['postgresql', 'mongodb']);
  });
});
