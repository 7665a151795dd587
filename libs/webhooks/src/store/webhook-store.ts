import type { SqlDatabase, SqlExecutor } from '@dob/sql';
import type { WebhookEventName } from '../webhook-events';

export interface WebhookRecord {
  readonly id: string;
  readonly ownerKeyId: string;
  readonly url: string;
  readonly events: WebhookEventName[];
  readonly isActive: boolean;
  readonly failureCount: number;
  readonly lastTriggeredAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface StoredWebhook extends WebhookRecord {
  readonly secretSealed: string;
}

export interface NewWebhookRow {
  readonly id: string;
  readonly ownerKeyId: string;
  readonly url: string;
  readonly events: readonly WebhookEventName[];
  readonly secretSealed: string;
}

export interface WebhookPatch {
  readonly url?: string;
  readonly events?: readonly WebhookEventName[];
  readonly secretSealed?: string;
  readonly isActive?: boolean;
}

interface Row {
  id: string;
  owner_key_id: string;
  url: string;
  events: WebhookEventName[];
  secret_sealed: string;
  is_active: boolean;
  failure_count: number;
  last_triggered_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = 'id, owner_key_id, url, events, secret_sealed, is_active, failure_count, last_triggered_at, created_at, updated_at';
const date = (v: Date | string): Date => (v instanceof Date ? v : new Date(v));

function toRecord(r: Row): StoredWebhook {
  return {
    id: r.id,
    ownerKeyId: r.owner_key_id,
    url: r.url,
    events: r.events,
    secretSealed: r.secret_sealed,
    isActive: r.is_active,
    failureCount: Number(r.failure_count),
    lastTriggeredAt: r.last_triggered_at === null ? null : date(r.last_triggered_at),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
  };
}

/** Pending deliveries of a webhook that stops being active fail at once: recovery is explicit (redeliver). */
export async function failPendingDeliveries(tx: SqlExecutor, webhookId: string, reason: string): Promise<void> {
  await tx.query(
    `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, lease_until = NULL, last_error = $2
      WHERE webhook_id = $1 AND status = 'pending'`,
    [webhookId, reason],
  );
}

/** Webhook registrations (service-owned state). Secrets arrive sealed; this store never sees plaintext. */
export class SqlWebhookStore {
  constructor(private readonly db: SqlDatabase) {}

  /** Inserts unless the key already has `limit` webhooks; atomic under concurrency (see migrations.ts). */
  async insert(row: NewWebhookRow, limit: number): Promise<StoredWebhook | 'limit'> {
    return this.db.transaction(async (tx) => {
      const slot = await tx.query(
        `INSERT INTO webhook_key_counts (owner_key_id, webhooks) VALUES ($1, 1)
         ON CONFLICT (owner_key_id) DO UPDATE SET webhooks = webhook_key_counts.webhooks + 1
          WHERE webhook_key_counts.webhooks < $2
         RETURNING webhooks`,
        [row.ownerKeyId, limit],
      );
      if (slot.rowCount === 0) return 'limit' as const;
      const { rows } = await tx.query<Row>(
        `INSERT INTO webhooks (id, owner_key_id, url, events, secret_sealed, is_active, failure_count, created_at, updated_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, true, 0, clock_timestamp(), clock_timestamp())
         RETURNING ${COLUMNS}`,
        [row.id, row.ownerKeyId, row.url, JSON.stringify(row.events), row.secretSealed],
      );
      return toRecord(rows[0]);
    });
  }

  /** Webhooks nothing is delivered to (deactivated after exhausted retries, or by their owner): a metrics gauge. */
  async countInactive(): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(`SELECT count(*) AS n FROM webhooks WHERE NOT is_active`);
    return Number(rows[0]?.n ?? 0);
  }

  async listByOwner(ownerKeyId: string): Promise<StoredWebhook[]> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM webhooks WHERE owner_key_id = $1 ORDER BY created_at, id`, [ownerKeyId]);
    return rows.map(toRecord);
  }

  async get(id: string): Promise<StoredWebhook | null> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM webhooks WHERE id = $1`, [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  /** Partial update of the owner's webhook; is_active true re-enables and resets failure_count (docs/agent-api.md#webhooks). */
  async update(ownerKeyId: string, id: string, patch: WebhookPatch): Promise<StoredWebhook | null> {
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<Row>(
        `UPDATE webhooks SET
           url = COALESCE($3, url),
           events = COALESCE($4::jsonb, events),
           secret_sealed = COALESCE($5, secret_sealed),
           is_active = COALESCE($6, is_active),
           failure_count = CASE WHEN $6 IS TRUE THEN 0 ELSE failure_count END,
           updated_at = clock_timestamp()
         WHERE id = $1 AND owner_key_id = $2
         RETURNING ${COLUMNS}`,
        [id, ownerKeyId, patch.url ?? null, patch.events ? JSON.stringify(patch.events) : null, patch.secretSealed ?? null, patch.isActive ?? null],
      );
      if (!rows[0]) return null;
      if (patch.isActive === false) await failPendingDeliveries(tx, id, 'webhook deactivated');
      return toRecord(rows[0]);
    });
  }

  /** Deletes the owner's webhook (its deliveries and attempt log go with it) and frees its slot. */
  async delete(ownerKeyId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.query(`DELETE FROM webhooks WHERE id = $1 AND owner_key_id = $2 RETURNING id`, [id, ownerKeyId]);
      if (gone.rowCount === 0) return false;
      await tx.query(`UPDATE webhook_key_counts SET webhooks = webhooks - 1 WHERE owner_key_id = $1`, [ownerKeyId]);
      return true;
    });
  }
}
