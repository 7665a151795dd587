/**
 * The webhooks bench's HTTPS receiver in a process of its own, as a subscriber's server is: in the bench's process it
 * decrypted and parsed every delivery on the notifier's own event loop, so the bench measured the notifier and the
 * receiver sharing one thread. Talks to the bench over IPC: `ready` (origin, CA) once listening; on `take` it sends
 * the requests received so far and forgets them; on `count`, how many; on `close` it stops.
 */
import { startTestReceiver } from '../libs/webhooks/src/testing/https-receiver';

type Ask = { kind: 'take' } | { kind: 'count' } | { kind: 'close' };

async function main(): Promise<void> {
  const receiver = await startTestReceiver();
  const send = (m: object) => process.send!(m);
  process.on('message', (ask: Ask) => {
    if (ask.kind === 'count') return send({ kind: 'count', count: receiver.requests.length });
    if (ask.kind === 'take') {
      const taken = receiver.requests.splice(0);
      return send({ kind: 'take', requests: taken.map((r) => ({ ...r, raw: r.raw.toString('base64') })) });
    }
    void receiver.close().then(() => process.exit(0));
  });
  send({ kind: 'ready', origin: receiver.origin, cert: receiver.cert });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
