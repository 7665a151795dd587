/**
 * The worker-thread side of createPgliteWorkerDatabase (pglite-worker-database.ts): one PGlite opened as
 * createPgliteDatabase opens it, answering the messages of worker-protocol.ts. A transaction stays open across
 * messages: `begin` starts PGlite's transaction and holds it until `end` (commit or rollback) arrives for it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlDatabase, SqlExecutor } from '../sql.port';
import { createPgliteDatabase, type PgliteOptions } from './pglite-database';
import { toWireError, type WorkerReply, type WorkerRequest } from './worker-protocol';

const port = parentPort!;

async function main(): Promise<void> {
  const db = await createPgliteDatabase(workerData as PgliteOptions);
  const transactions = new Map<number, OpenTransaction>();
  const unlisten = new Map<number, () => Promise<void>>();
  const reply = (r: WorkerReply) => port.postMessage(r);

  const opened = (tx: number): OpenTransaction => {
    const open = transactions.get(tx);
    if (!open) throw new Error(`transaction ${tx} is not open`);
    return open;
  };
  const executorFor = (tx: number | undefined): SqlExecutor => (tx === undefined ? db : opened(tx).tx);

  const handle = async (m: WorkerRequest): Promise<unknown> => {
    switch (m.op) {
      case 'query':
        return executorFor(m.tx).query(m.text, m.params);
      case 'exec':
        return executorFor(m.tx).exec(m.text);
      case 'copyIn':
        return executorFor(m.tx).copyIn(m.table, m.columns, m.text);
      case 'begin':
        return begin(db, m.id, transactions);
      case 'end': {
        const open = opened(m.tx);
        open.end(m.commit);
        // COMMIT's own failure is the answer; a rollback the caller asked for is not a failure.
        await open.ended.catch((e: unknown) => {
          if (!(e instanceof RolledBack)) throw e;
        });
        return undefined;
      }
      case 'listen':
        unlisten.set(m.id, await db.listen(m.channel, (payload) => reply({ id: m.id, notification: payload })));
        return undefined;
      case 'unlisten':
        await unlisten.get(m.listener)?.();
        unlisten.delete(m.listener);
        return undefined;
      case 'close':
        await db.close();
        return undefined;
    }
  };

  port.on('message', (m: WorkerRequest) => {
    handle(m).then(
      (result) => reply({ id: m.id, result }),
      (e: unknown) => reply({ id: m.id, error: toWireError(e) }),
    );
  });
  reply({ id: 0, result: 'ready' });
}

interface OpenTransaction {
  readonly tx: SqlExecutor;
  readonly end: (commit: boolean) => void;
  /** Settles once PGlite has committed (or rolled back) it. */
  readonly ended: Promise<void>;
}

/** Opens a PGlite transaction that stays open until its `end` message; resolves once it is open. */
function begin(db: SqlDatabase, id: number, transactions: Map<number, OpenTransaction>): Promise<void> {
  return new Promise<void>((opened, failedToOpen) => {
    // PGlite runs this callback only after its BEGIN, so `ended` is assigned by the time the entry is made.
    const ended: Promise<void> = db.transaction(
      (tx) =>
        new Promise<void>((resolve, reject) => {
          transactions.set(id, { tx, end: (commit) => (commit ? resolve() : reject(new RolledBack())), ended });
          opened();
        }),
    );
    ended.catch(failedToOpen); // only before it opened: later, `end` reports how it ended
    void ended.finally(() => transactions.delete(id)).catch(() => undefined);
  });
}

class RolledBack extends Error {}

main().catch((e: unknown) => port.postMessage({ id: 0, error: toWireError(e) } satisfies WorkerReply));
