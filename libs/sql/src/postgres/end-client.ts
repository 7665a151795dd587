import type { Client } from 'pg';

/**
 * Ends c, or drops its socket if the server has not closed its side within `ms`: end() waits for the server, which a
 * frozen server or a dropped network never answers (a LISTEN's unlisten, or the ops CLI's database watch, hung on it).
 */
export async function endClientWithin(c: Client, ms: number): Promise<void> {
  const drop = setTimeout(() => c.connection.stream.destroy(), ms);
  drop.unref();
  await c.end().catch(() => undefined);
  clearTimeout(drop);
}
