import { Client, type ClientConfig } from 'pg';
import { endClientWithin } from './end-client';

/** Waits between attempts to re-establish a lost LISTEN connection: doubling from the first, capped at the last. */
export const RELISTEN_BACKOFF_MS = { first: 100, max: 2000 } as const;

/**
 * The LISTEN connection is asked `SELECT 1` every `every` ms, and it (as LISTEN itself) must answer within `timeout`
 * or counts as lost. A LISTEN connection only receives: a server that froze, or a network that drops packets, sends
 * it no error and no end, so without a question of its own it waited forever — never saying `onConnection(false)`,
 * never reconnecting, while every NOTIFY was missed (a read cache went on serving what it held).
 */
export const LISTEN_HEARTBEAT_MS = { every: 5000, timeout: 3000 } as const;

/**
 * LISTEN on its own connection (a pooled one would be lent out and lose the subscription), kept alive: when the
 * connection fails (the server restarted, an admin terminated it, the network dropped) it is re-established with
 * backoff and LISTEN issued again, until unlisten. NOTIFYs sent while no connection listened are lost — PostgreSQL
 * queues notifications only for sessions listening at commit — so `onConnection(false)` tells the caller to stop
 * trusting silence, and `onConnection(true)` that LISTEN is active again (treat it as "something may have changed").
 * Before this, one error left the client dead and every waker fell back to polling for the process's lifetime
 * (issue 31: the API's /health flapped "1 events behind" after a PostgreSQL restart, the projector polling at 1 s).
 */
export async function listenKeptAlive(
  config: ClientConfig,
  channel: string,
  onNotify: (payload: string) => void,
  onConnection: (connected: boolean) => void = () => undefined,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoff: number = RELISTEN_BACKOFF_MS.first;

  const connect = async (): Promise<Client> => {
    const c = new Client({ ...config, query_timeout: LISTEN_HEARTBEAT_MS.timeout });
    c.on('notification', (n) => {
      if (n.channel === channel) onNotify(n.payload ?? '');
    });
    // Errors arrive as 'error' (socket) and/or 'end'; either one means this connection no longer listens.
    c.once('error', () => lost(c));
    c.once('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN ${channel}`);
    } catch (e) {
      c.removeAllListeners('end');
      c.on('error', () => undefined);
      await endClientWithin(c, LISTEN_HEARTBEAT_MS.timeout);
      throw e;
    }
    return c;
  };

  const lost = (c: Client): void => {
    if (c !== client || stopped) return;
    client = undefined;
    c.on('error', () => undefined); // a later socket error of the dead client must not crash the process
    void endClientWithin(c, LISTEN_HEARTBEAT_MS.timeout);
    onConnection(false);
    schedule();
  };

  const schedule = (): void => {
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        (c) => {
          if (stopped) return void c.end().catch(() => undefined);
          client = c;
          backoff = RELISTEN_BACKOFF_MS.first;
          onConnection(true);
        },
        () => {
          backoff = Math.min(backoff * 2, RELISTEN_BACKOFF_MS.max);
          if (!stopped) schedule();
        },
      );
    }, backoff);
    retry.unref();
  };

  client = await connect(); // the first attempt fails loudly: the caller decides what no LISTEN means
  const heartbeat = setInterval(() => {
    const c = client;
    c?.query('SELECT 1').catch(() => lost(c)); // an error or no answer in time (query_timeout): lost
  }, LISTEN_HEARTBEAT_MS.every);
  heartbeat.unref();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    clearInterval(heartbeat);
    const c = client;
    client = undefined;
    if (c) await endClientWithin(c, LISTEN_HEARTBEAT_MS.timeout);
  };
}
