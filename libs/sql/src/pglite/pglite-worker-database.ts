import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SqlDatabase, SqlExecutor, SqlResult } from '../sql.port';
import type { PgliteOptions } from './pglite-database';
import { fromWireError, type WorkerReply, type WorkerRequest } from './worker-protocol';

/**
 * The worker's entry: its TypeScript source, compiled by the project's loader as in every process the system starts
 * (scripts/register.js), or the compiled file beside this one.
 */
const BOOTSTRAP = __filename.endsWith('.ts')
  ? `require(${JSON.stringify(join(__dirname, '../../../../scripts/register.js'))}); require(${JSON.stringify(join(__dirname, 'pglite-worker.ts'))});`
  : `require(${JSON.stringify(join(__dirname, 'pglite-worker.js'))});`;

/** Distributes the requests of Omit<WorkerRequest, 'id'> over the union's members. */
type Request = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;

/**
 * Embedded PGlite on a thread of its own: the same database as createPgliteDatabase (same files, settings and SQL),
 * opened in a worker thread, so PostgreSQL's work (WebAssembly, on PGlite's one connection) runs beside the
 * process's JavaScript instead of between it. Each call is a message (structured clone: rows keep their Dates,
 * Uint8Arrays and parsed JSON); a transaction stays open in the worker across its statements' messages. An error keeps
 * its message and PostgreSQL fields (code, constraint, …), which is what the stores read.
 */
export async function createPgliteWorkerDatabase(options: PgliteOptions = {}): Promise<SqlDatabase> {
  const db = new PgliteWorkerDatabase(new Worker(BOOTSTRAP, { eval: true, workerData: options, execArgv: [] }));
  await db.ready;
  return db;
}

class PgliteWorkerDatabase implements SqlDatabase {
  readonly kind = 'pglite' as const;
  readonly ready: Promise<void>;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<number, { onNotify: (payload: string) => void; onConnection?: (connected: boolean) => void }>();
  private failure: Error | null = null;
  readonly failed = (): Error | null => this.failure;
  private closed = false;

  constructor(private readonly worker: Worker) {
    this.ready = new Promise<void>((resolve, reject) => this.pending.set(0, { resolve: () => resolve(), reject }));
    worker.on('message', (r: WorkerReply) => this.onReply(r));
    // An error thrown in the thread would otherwise reach callers as a bare TypeError from code they never called.
    worker.on('error', (e: Error) => this.fail(new Error(`the PGlite worker thread failed: ${e.message}`, { cause: e })));
    worker.on('exit', (code) => this.fail(new Error(`the PGlite worker thread exited (code ${code})`)));
  }

  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    return this.send<SqlResult<R>>({ op: 'query', text, params });
  }

  async exec(text: string): Promise<void> {
    await this.send({ op: 'exec', text });
  }

  async copyIn(table: string, columns: readonly string[], text: string): Promise<void> {
    await this.send({ op: 'copyIn', table, columns, text });
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const tx = this.nextId++;
    await this.send({ op: 'begin' }, tx);
    let result: T;
    try {
      result = await fn({
        query: <R>(text: string, params?: readonly unknown[]) => this.send<SqlResult<R>>({ op: 'query', tx, text, params }),
        exec: async (text) => void (await this.send({ op: 'exec', tx, text })),
        copyIn: async (table, columns, text) => void (await this.send({ op: 'copyIn', tx, table, columns, text })),
      });
    } catch (e) {
      await this.send({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw e;
    }
    await this.send({ op: 'end', tx, commit: true });
    return result;
  }

  async listen(channel: string, onNotify: (payload: string) => void, onConnection?: (connected: boolean) => void): Promise<() => Promise<void>> {
    const id = this.nextId++;
    this.listeners.set(id, { onNotify, onConnection });
    try {
      await this.send({ op: 'listen', channel }, id);
    } catch (e) {
      this.listeners.delete(id);
      throw e;
    }
    return async () => {
      // With the thread gone (closed, or failed) its LISTEN went with it: nothing is left to undo.
      if (!this.listeners.delete(id) || this.closed || this.failure) return;
      await this.send({ op: 'unlisten', listener: id });
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.failure) await this.send({ op: 'close' });
    this.closed = true;
    this.listeners.clear();
    await this.worker.terminate();
  }

  private send<T>(request: Request, id = this.nextId++): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    return new Promise<T>((resolve, reject) => {
      // The thread keeps the process alive only while it owes an answer, as a query of in-process PGlite does.
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.worker.postMessage({ ...request, id } as WorkerRequest);
      } catch (e) {
        // A value structured clone refuses (a function, a symbol) never reaches the thread, so nothing will answer
        // this id: left pending, it would keep the thread ref'd, and with it the process, forever.
        this.settled(id);
        reject(e as Error);
      }
    });
  }

  private onReply(r: WorkerReply): void {
    if (r.notification !== undefined) {
      this.listeners.get(r.id)?.onNotify(r.notification);
      return;
    }
    const waiting = this.pending.get(r.id);
    if (!waiting) return;
    this.settled(r.id);
    if (r.error) waiting.reject(fromWireError(r.error));
    else waiting.resolve(r.result);
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  /**
   * The thread failed or ended: every waiting call fails with why, and so does every later one. Its LISTENs ended
   * with it, so each listener hears `onConnection(false)`, as from a server whose LISTEN connection was lost (never
   * `true` again: the thread is not restarted), and stops trusting silence — a read cache would otherwise keep
   * serving what it holds, no change ever being notified again.
   */
  private fail(e: Error): void {
    if (this.closed || this.failure) return;
    this.failure = e;
    for (const [id, waiting] of [...this.pending]) {
      this.settled(id);
      waiting.reject(e);
    }
    for (const { onConnection } of this.listeners.values()) onConnection?.(false);
  }
}
