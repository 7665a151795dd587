import { Client, type ClientConfig } from 'pg';

/** Waits between attempts to re-establish a lost LISTEN connection: doubling from the first, capped at the last. */
export const RELISTEN_BACKOFF_MS = { first: 100, max: 2000 } as const;

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
    const c = new Client(config);
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
      await c.end().catch(() => undefined);
      throw e;
    }
    return c;
  };

  const lost = (c: Client): void => {
    if (c !== client || stopped) return;
    client = undefined;
    c.on('error', () => undefined); // a later socket error of the dead client must not crash the process
    void c.end().catch(() => undefined);
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
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const c = client;
    client = undefined;
    await c?.end().catch(() => undefined);
  };
}
