import { Client } from 'pg';
import { endClientWithin } from '@dob/sql';

/**
 * How the CLI tells a PostgreSQL server that went silent from one that is only busy. 15 s without any answer to a
 * `SELECT 1` that a loaded server answers in milliseconds, even mid-`CREATE INDEX` of a rebuild at volume.
 */
export const DATABASE_WATCH = { pingEveryMs: 2_000, answerWithinMs: 5_000, silentForMs: 15_000 } as const;

export interface DatabaseWatch {
  /** Resolves (never rejects) with the whole seconds the server has not answered, once that reaches silentForMs. */
  readonly silent: Promise<number>;
  stop(): void;
}

/** The server answered, if only to refuse (too many clients, shutting down): it is not silent. */
const serverAnswered = (e: unknown) => typeof (e as { severity?: unknown } | null)?.severity === 'string';

/**
 * Why: a server that goes silent mid-command (frozen, a network dropping packets) leaves the statement in flight
 * waiting forever — node-postgres has no deadline of its own, and the pool's connect timeout covers only new
 * connections — so `ops projections rebuild` hung with no message (ops-faults.int-spec.ts). A deadline on the work
 * would cut a rebuild's long but correct statements, so, as the apps' LISTEN connection does (docs/ARCHITECTURE.md,
 * silent servers), the server is asked instead: `SELECT 1` on a connection of the watch's own every pingEveryMs,
 * reconnected after any failure; no answer for silentForMs settles `silent`, and the command gives up.
 */
export function watchDatabase(connectionString: string, o: typeof DATABASE_WATCH = DATABASE_WATCH): DatabaseWatch {
  let lastAnswer = performance.now(); // monotonic: a wall-clock step must not fake or hide a silence
  let conn: Client | undefined;
  let pinging = false;
  let settle!: (seconds: number) => void;
  const silent = new Promise<number>((resolve) => (settle = resolve));

  const drop = (c: Client) => void endClientWithin(c, o.answerWithinMs);

  const ping = async () => {
    pinging = true;
    let c = conn;
    try {
      if (!c) {
        c = conn = new Client({ connectionString, connectionTimeoutMillis: o.answerWithinMs, query_timeout: o.answerWithinMs });
        c.on('error', () => undefined); // a lost connection fails the next ping, which reconnects
        await c.connect();
      }
      await c.query('SELECT 1');
      lastAnswer = performance.now();
    } catch (e) {
      if (serverAnswered(e)) lastAnswer = performance.now();
      if (c) drop(c); // a timed-out query stays queued on its connection: a fresh one next time
      if (conn === c) conn = undefined;
    } finally {
      pinging = false;
    }
  };

  const timer = setInterval(() => {
    const quiet = performance.now() - lastAnswer;
    if (quiet >= o.silentForMs) settle(Math.floor(quiet / 1000));
    else if (!pinging) void ping();
  }, o.pingEveryMs);
  timer.unref(); // the command's own work keeps the process alive, never the watch

  return {
    silent,
    stop: () => {
      clearInterval(timer);
      if (conn) drop(conn);
      conn = undefined;
    },
  };
}
