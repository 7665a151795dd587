import { randomBytes } from 'node:crypto';
import type { SqlDatabase, SqlExecutor } from '@dob/sql';
import { retryDelayMs } from '../delivery/retry-schedule';
import { failPendingDeliveries } from './webhook-store';

export interface NewDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly body: string;
}

/** A delivery leased to one worker for one attempt. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly webhookId: string;
  readonly eventType: string;
  readonly body: string;
  readonly url: string;
  readonly secretSealed: string;
  readonly leaseToken: string;
  /** When the lease lapses and another worker may claim the row. */
  readonly leaseUntil: Date;
}

export interface AttemptOutcome {
  readonly at: Date;
  readonly responseCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttemptView {
  readonly attempt: number;
  readonly attemptedAt: Date;
  readonly responseCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

export interface DeliveryView {
  readonly id: string;
  readonly webhookId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly status: DeliveryStatus;
  readonly attempts: DeliveryAttemptView[];
  readonly nextAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
}

const d = (v: Date | string | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v));

/**
 * The durable delivery queue. Rows are enqueued by the fan-out projection in its checkpoint transaction; workers
 * lease due rows with FOR UPDATE SKIP LOCKED (several workers/processes never take the same row), and every
 * attempt's result is written together with the next schedule. A worker that dies mid-attempt leaves a lease that
 * expires, so the row is tried again: delivery is at-least-once and receivers dedupe on the stable delivery id.
 */
export class SqlDeliveryQueue {
  constructor(private readonly db: SqlDatabase) {}

  /** In the caller's transaction; ids already queued are skipped (replays enqueue nothing twice). */
  static async enqueue(tx: SqlExecutor, rows: readonly NewDelivery[], now: Date): Promise<number> {
    if (rows.length === 0) return 0;
    const r = await tx.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, body, status, next_attempt_at, created_at)
       SELECT x.id, x.webhook_id, x.event_id, x.event_type, x.body, 'pending', $2, $2
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, webhook_id text, event_id text, event_type text, body text)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(rows.map((r) => ({ id: r.id, webhook_id: r.webhookId, event_id: r.eventId, event_type: r.eventType, body: r.body }))), now.toISOString()],
    );
    return r.rowCount;
  }

  async claimDue(now: Date, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const token = randomBytes(8).toString('hex');
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const { rows } = await this.db.query<{ id: string; webhook_id: string; event_type: string; body: string; url: string; secret_sealed: string }>(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND w.is_active
            AND (d.lease_until IS NULL OR d.lease_until < $1)
          ORDER BY d.next_attempt_at, d.id
          LIMIT $2
          FOR UPDATE OF d SKIP LOCKED
       )
       UPDATE webhook_deliveries d SET lease_token = $3, lease_until = $4
         FROM due, webhooks w
        WHERE d.id = due.id AND w.id = d.webhook_id
       RETURNING d.id, d.webhook_id, d.event_type, d.body, w.url, w.secret_sealed`,
      [now.toISOString(), limit, token, leaseUntil.toISOString()],
    );
    return rows.map((r) => ({
      id: r.id,
      webhookId: r.webhook_id,
      eventType: r.event_type,
      body: r.body,
      url: r.url,
      secretSealed: r.secret_sealed,
      leaseToken: token,
      leaseUntil,
    }));
  }

  /** Gives back the leases of claimed deliveries that were never attempted (a worker stopping): due again at once. */
  async release(claims: readonly ClaimedDelivery[]): Promise<void> {
    if (claims.length === 0) return;
    await this.db.query(
      `UPDATE webhook_deliveries d SET lease_token = NULL, lease_until = NULL
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, token text)
        WHERE d.id = x.id AND d.lease_token = x.token AND d.status = 'pending'`,
      [JSON.stringify(claims.map((c) => ({ id: c.id, token: c.leaseToken })))],
    );
  }

  /** When the next pending row falls due (so an idle worker sleeps exactly until then). */
  async nextDueAt(): Promise<Date | null> {
    const { rows } = await this.db.query<{ at: Date | string | null }>(
      `SELECT min(GREATEST(d.next_attempt_at, COALESCE(d.lease_until, d.next_attempt_at))) AS at
         FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.status = 'pending' AND w.is_active`,
    );
    return d(rows[0]?.at ?? null);
  }

  /** 2xx: delivered; the webhook's consecutive-failure count resets. False if the lease was lost meanwhile. */
  async recordSuccess(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    return (await this.recordSuccesses([{ claim, outcome }])).has(claim.id);
  }

  /**
   * Several successes in one transaction (group commit: the worker coalesces the ones that finish together, so a
   * burst pays one commit per group instead of one per delivery). Returns the ids actually recorded — a row whose
   * lease was lost meanwhile is left to its new holder.
   */
  async recordSuccesses(items: readonly { claim: ClaimedDelivery; outcome: AttemptOutcome }[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const batch = JSON.stringify(
      items.map(({ claim, outcome }) => ({
        id: claim.id,
        token: claim.leaseToken,
        at: outcome.at.toISOString(),
        code: outcome.responseCode,
        duration_ms: Math.round(outcome.durationMs),
      })),
    );
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; webhook_id: string; at: Date | string }>(
        `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, token text, at timestamptz, code int4, duration_ms int4)),
         done AS (
           UPDATE webhook_deliveries d SET status = 'delivered', attempts = d.attempts + 1, delivered_at = x.at,
                  next_attempt_at = NULL, lease_token = NULL, lease_until = NULL, last_response_code = x.code, last_error = NULL
             FROM x WHERE d.id = x.id AND d.lease_token = x.token AND d.status = 'pending'
           RETURNING d.id, d.webhook_id, d.attempts, x.at, x.code, x.duration_ms
         ),
         logged AS (
           INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, response_code, duration_ms, error)
           SELECT id, attempts, at, code, duration_ms, NULL FROM done
           ON CONFLICT (delivery_id, attempt) DO NOTHING
         )
         SELECT id, webhook_id, at FROM done`,
        [batch],
      );
      const latest = new Map<string, string>();
      for (const r of rows) {
        const at = new Date(r.at).toISOString();
        if ((latest.get(r.webhook_id) ?? '') < at) latest.set(r.webhook_id, at);
      }
      if (latest.size > 0) {
        // Every success would otherwise write (and row-lock) its webhook's row, serialising that webhook's
        // deliveries on its commits; so the row is written only when failure_count must reset or
        // last_triggered_at is more than a second old (it is kept to the second).
        await tx.query(
          `UPDATE webhooks w SET failure_count = 0, last_triggered_at = x.at
             FROM jsonb_to_recordset($1::jsonb) AS x(id text, at timestamptz)
            WHERE w.id = x.id
              AND (w.failure_count <> 0 OR w.last_triggered_at IS NULL OR w.last_triggered_at < x.at - interval '1 second')`,
          [JSON.stringify([...latest].map(([id, at]) => ({ id, at })))],
        );
      }
      return new Set(rows.map((r) => r.id));
    });
  }

  /**
   * A failed attempt: schedules the next retry, or — when the 5th retry has failed — fails the delivery and turns
   * the webhook inactive (its other pending deliveries fail with it; recovery is explicit).
   */
  async recordFailure(claim: ClaimedDelivery, outcome: AttemptOutcome, schedule: readonly number[]): Promise<'retry' | 'failed' | 'lost'> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ attempts: number; failed_in_cycle: number }>(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, failed_in_cycle = failed_in_cycle + 1,
                lease_token = NULL, lease_until = NULL, last_response_code = $3, last_error = $4
          WHERE id = $1 AND lease_token = $2 AND status = 'pending'
          RETURNING attempts, failed_in_cycle`,
        [claim.id, claim.leaseToken, outcome.responseCode, outcome.error],
      );
      if (!rows[0]) return 'lost' as const;
      await insertAttempt(tx, claim.id, Number(rows[0].attempts), outcome);
      await tx.query(`UPDATE webhooks SET failure_count = failure_count + 1, last_triggered_at = $2 WHERE id = $1`, [
        claim.webhookId,
        outcome.at.toISOString(),
      ]);
      const delay = retryDelayMs(Number(rows[0].failed_in_cycle), schedule);
      if (delay !== null) {
        await tx.query(`UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE id = $1`, [claim.id, new Date(outcome.at.getTime() + delay).toISOString()]);
        return 'retry' as const;
      }
      await tx.query(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1`, [claim.id]);
      await tx.query(`UPDATE webhooks SET is_active = false, updated_at = clock_timestamp() WHERE id = $1`, [claim.webhookId]);
      await failPendingDeliveries(tx, claim.webhookId, 'webhook deactivated after its retries were exhausted');
      return 'failed' as const;
    });
  }

  async listForWebhook(webhookId: string, page: number, limit: number): Promise<{ deliveries: DeliveryView[]; total: number }> {
    const [list, count] = await Promise.all([
      this.db.query<{
        id: string;
        webhook_id: string;
        event_id: string;
        event_type: string;
        status: DeliveryStatus;
        next_attempt_at: Date | string | null;
        created_at: Date | string;
        delivered_at: Date | string | null;
      }>(
        `SELECT id, webhook_id, event_id, event_type, status, next_attempt_at, created_at, delivered_at
           FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
        [webhookId, limit, (page - 1) * limit],
      ),
      this.db.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = $1`, [webhookId]),
    ]);
    const ids = list.rows.map((r) => r.id);
    const attempts = ids.length
      ? (
          await this.db.query<{
            delivery_id: string;
            attempt: number;
            attempted_at: Date | string;
            response_code: number | null;
            duration_ms: number;
            error: string | null;
          }>(
            `SELECT delivery_id, attempt, attempted_at, response_code, duration_ms, error FROM webhook_delivery_attempts
              WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt`,
            [ids],
          )
        ).rows
      : [];
    return {
      total: Number(count.rows[0].n),
      deliveries: list.rows.map((r) => ({
        id: r.id,
        webhookId: r.webhook_id,
        eventId: r.event_id,
        eventType: r.event_type,
        status: r.status,
        nextAttemptAt: d(r.next_attempt_at),
        createdAt: d(r.created_at)!,
        deliveredAt: d(r.delivered_at),
        attempts: attempts
          .filter((a) => a.delivery_id === r.id)
          .map((a) => ({
            attempt: Number(a.attempt),
            attemptedAt: d(a.attempted_at)!,
            responseCode: a.response_code === null ? null : Number(a.response_code),
            durationMs: Number(a.duration_ms),
            error: a.error,
          })),
      })),
    };
  }

  /** Recovery: puts one delivery of this webhook back in the queue now, with a fresh retry cycle (same id). */
  async redeliver(webhookId: string, deliveryId: string, now: Date): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', failed_in_cycle = 0, next_attempt_at = $3,
              lease_token = NULL, lease_until = NULL
        WHERE id = $1 AND webhook_id = $2`,
      [deliveryId, webhookId, now.toISOString()],
    );
    return r.rowCount > 0;
  }

  /** Counts by status (health, tests, benchmark). */
  async counts(): Promise<Record<DeliveryStatus, number>> {
    const { rows } = await this.db.query<{ status: DeliveryStatus; n: string }>(`SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status`);
    const out: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, failed: 0 };
    for (const r of rows) out[r.status] = Number(r.n);
    return out;
  }
}

async function insertAttempt(tx: SqlExecutor, deliveryId: string, attempt: number, o: AttemptOutcome): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, attempted_at, response_code, duration_ms, error)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, attempt) DO NOTHING`,
    [deliveryId, attempt, o.at.toISOString(), o.responseCode, Math.round(o.durationMs), o.error],
  );
}
