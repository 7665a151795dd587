import { createChainEventCatalog } from '@dob/domain';
import { createSqlEventStore, type NewEvent } from '@dob/event-store';
import { createSqlReadModelStore, ProjectionRunner, type SqlProjectionDefinition } from '@dob/projections';
import { createPgliteDatabase } from '@dob/sql';
import { createFanoutProjection } from '../fanout/fanout.projection';
import { createWebhookComponents } from '../notifier';
import { WEBHOOK_EVENTS } from '../webhook-events';
import { testCaller } from './test-caller';

/** A notification as a receiver sees it: the body's event name and data. */
export interface Notified {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** An event to append, on its stream. */
export interface SpecAppend {
  readonly streamId: string;
  readonly event: NewEvent;
}

/**
 * Given/when/then for the webhook fan-out (a SQL projection, so it runs on PGlite in memory, not a fake): one
 * webhook subscribed to every event; the `given` events are fanned out first, then the `when` events, and `then`
 * states the notifications the `when` events enqueued, in order.
 */
export class FanoutSpec {
  static given(...events: SpecAppend[]): { when(...events: SpecAppend[]): { then(expected: Notified[]): Promise<void> } } {
    return {
      when: (...later) => ({ then: async (expected) => expect(await notifications(events, later)).toEqual(expected) }),
    };
  }
}

async function notifications(given: readonly SpecAppend[], when: readonly SpecAppend[]): Promise<Notified[]> {
  const db = await createPgliteDatabase();
  const store = await createSqlEventStore(db, { catalog: createChainEventCatalog(), pollIntervalMs: 10 });
  const noSend = { send: async () => ({ ok: true, responseCode: 200, durationMs: 0, error: null }) };
  const webhooks = await createWebhookComponents({ db, secretKey: Buffer.alloc(32, 1), allowList: { hosts: ['receiver.test'] }, sender: noSend });
  await webhooks.service.register(testCaller('ak_spec'), {
    url: 'https://receiver.test/hook',
    events: [...WEBHOOK_EVENTS],
    secret: 'a-very-long-secret-value',
  });
  // Each phase appends its events, then a runner fans them out until caught up (as a notifier restarted after them).
  const fanOut = async (events: readonly SpecAppend[]) => {
    for (const e of events) await store.appendToStream(e.streamId, [e.event]);
    const runner = new ProjectionRunner<SqlProjectionDefinition>(store, createSqlReadModelStore(db), [createFanoutProjection()], { pollIntervalMs: 10 });
    await runner.start();
    try {
      await runner.waitUntilCaughtUp(30_000);
    } finally {
      await runner.stop();
    }
  };
  try {
    await fanOut(given);
    const before = await deliveryCount(db);
    await fanOut(when);
    const rows = await db.query<{ body: string; event_id: string }>(`SELECT body, event_id FROM webhook_deliveries ORDER BY created_at, id OFFSET $1`, [
      before,
    ]);
    // one batch shares a created_at: order by the `when` events, as a receiver would get them
    const order = (r: { event_id: string }) => when.findIndex((e) => e.event.id === r.event_id);
    return rows.rows
      .sort((a, b) => order(a) - order(b))
      .map((r) => {
        const body = JSON.parse(r.body) as { event: string; data: Record<string, unknown> };
        return { event: body.event, data: body.data };
      });
  } finally {
    await store.close();
    await db.close();
  }
}

async function deliveryCount(db: Awaited<ReturnType<typeof createPgliteDatabase>>): Promise<number> {
  return Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries`)).rows[0]!.n);
}
