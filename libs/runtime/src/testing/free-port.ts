import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the kernel takes the local ports of outgoing connections and of listen(0) from (Linux's default if unreadable). */
export function ephemeralPortRange(path = '/proc/sys/net/ipv4/ip_local_port_range'): readonly [number, number] {
  try {
    const [low, high] = readFileSync(path, 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low! > 0 && low! <= high!) return [low!, high!];
  } catch {
    // not Linux, or no /proc: the default below
  }
  return [32768, 60999];
}

/** Below this, well-known and registered ports, and the servers this project runs (5432, 6379, 9092, 27017, …). */
const LOWEST = 10_000;

const canListen = (port: number, host: string) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });

/**
 * A TCP port nobody listens on, for a process about to be started to listen on. Chosen at random below the
 * ephemeral range rather than by listen(0): listen(0) hands out a port of that range, the range every outgoing
 * connection's local port comes from too, so between the check and the child's own listen, any client on the
 * machine (a PostgreSQL pool, a fetch) could take it — CI saw a second indexer of the scale-out test die on
 * EADDRINUSE that way. Checked on 0.0.0.0, where the apps listen (a listener on any address blocks it).
 */
export async function freePort(host = '0.0.0.0'): Promise<number> {
  const [ephemeralLow] = ephemeralPortRange();
  const highest = Math.max(LOWEST + 1_000, ephemeralLow - 1);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(LOWEST, highest + 1);
    if (await canListen(port, host)) return port;
  }
  throw new Error(`no free port found between ${LOWEST} and ${highest} in 100 tries`);
}
