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
  /** When the API key that registered it was revoked (then it stays inactive); null while the key lives. */
  readonly keyRevokedAt: Date | null;
}

export interface StoredWebhook extends WebhookRecord {
  readonly secretSealed: string;
}

/** A caller that is an API key (only keys register webhooks). */
export type WebhookOwner = WebhookCaller & { readonly keyId: string };

export interface NewWebhookRow {
  readonly id: string;
  readonly ownerKeyId: string;
  readonly ownerWallet: string;
  readonly url: string;
  readonly events: readonly WebhookEventName[];
  readonly secretSealed: string;
}

/** Who calls webhook management: an API key and its wallet, or (keyId null) the wallet itself through its JWT. */
export interface WebhookCaller {
  readonly keyId: string | null;
  readonly wallet: string;
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
  key_revoked_at: Date | string | null;
}

const COLUMNS = 'id, owner_key_id, url, events, secret_sealed, is_active, failure_count, last_triggered_at, created_at, updated_at, key_revoked_at';
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
    keyRevokedAt: r.key_revoked_at === null ? null : date(r.key_revoked_at),
  };
}

/**
 * Which webhooks a caller may see and delete: a key, those of its own key and those of its wallet's revoked keys
 * (nobody else can reach them any more); the wallet's JWT (key id null), every webhook of the wallet. `keyId` and
 * `wallet` name the query parameters holding the caller's.
 */
const visibleTo = (keyId: string, wallet: string) =>
  `(owner_key_id = ${keyId} OR (owner_wallet = ${wallet} AND (key_revoked_at IS NOT NULL OR ${keyId}::text IS NULL)))`;

/**
 * The webhooks of a revoked key stop for good, in the transaction that records the revocation (the fan-out's):
 * inactive, marked with the revocation, their pending deliveries failed — queued ones included, so nothing more
 * goes out (a delivery already being sent may still arrive). Idempotent.
 */
export async function endWebhooksOfKey(tx: SqlExecutor, revoked: { keyId: string; wallet: string; at: Date }): Promise<number> {
  const { rows } = await tx.query<{ id: string }>(
    `UPDATE webhooks SET is_active = false, key_revoked_at = COALESCE(key_revoked_at, $3), owner_wallet = COALESCE(owner_wallet, $2),
            updated_at = clock_timestamp()
      WHERE owner_key_id = $1 RETURNING id`,
    [revoked.keyId, revoked.wallet, revoked.at.toISOString()],
  );
  for (const { id } of rows) await failPendingDeliveries(tx, id, 'the API key that registered the webhook was revoked');
  return rows.length;
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

  /**
   * Inserts unless the key already has `limits.perKey` webhooks or its wallet `limits.perWallet`; atomic under
   * concurrency (the key's counter row, see migrations.ts; the wallet's count under a transaction-scoped advisory lock).
   */
  async insert(row: NewWebhookRow, limits: { perKey: number; perWallet: number }): Promise<StoredWebhook | 'key-limit' | 'wallet-limit'> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dob.webhooks.wallet:' || $1))`, [row.ownerWallet]);
      // Rows registered before owner_wallet existed learn it from their key's next registration.
      await tx.query(`UPDATE webhooks SET owner_wallet = $2 WHERE owner_key_id = $1 AND owner_wallet IS NULL`, [row.ownerKeyId, row.ownerWallet]);
      const held = await tx.query<{ n: number | string }>(`SELECT count(*) AS n FROM webhooks WHERE owner_wallet = $1`, [row.ownerWallet]);
      if (Number(held.rows[0].n) >= limits.perWallet) return 'wallet-limit' as const;
      const slot = await tx.query(
        `INSERT INTO webhook_key_counts (owner_key_id, webhooks) VALUES ($1, 1)
         ON CONFLICT (owner_key_id) DO UPDATE SET webhooks = webhook_key_counts.webhooks + 1
          WHERE webhook_key_counts.webhooks < $2
         RETURNING webhooks`,
        [row.ownerKeyId, limits.perKey],
      );
      if (slot.rowCount === 0) return 'key-limit' as const;
      const { rows } = await tx.query<Row>(
        `INSERT INTO webhooks (id, owner_key_id, owner_wallet, url, events, secret_sealed, is_active, failure_count, created_at, updated_at)
         VALUES ($1, $2, $6, $3, $4::jsonb, $5, true, 0, clock_timestamp(), clock_timestamp())
         RETURNING ${COLUMNS}`,
        [row.id, row.ownerKeyId, row.url, JSON.stringify(row.events), row.secretSealed, row.ownerWallet],
      );
      return toRecord(rows[0]);
    });
  }

  /** Webhooks nothing is delivered to (deactivated after exhausted retries, or by their owner): a metrics gauge. */
  async countInactive(): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(`SELECT count(*) AS n FROM webhooks WHERE NOT is_active`);
    return Number(rows[0]?.n ?? 0);
  }

  /** The caller key's webhooks and those of its wallet's revoked keys. */
  async listVisibleTo(caller: WebhookCaller): Promise<StoredWebhook[]> {
    const { rows } = await this.db.query<Row>(`SELECT ${COLUMNS} FROM webhooks WHERE ${visibleTo('$1', '$2')} ORDER BY created_at, id`, [
      caller.keyId,
      caller.wallet,
    ]);
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

  /** Deletes a webhook the caller may see (its deliveries and attempt log go with it) and frees its key's slot. */
  async delete(caller: WebhookCaller, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.query<{ owner_key_id: string }>(`DELETE FROM webhooks WHERE id = $1 AND ${visibleTo('$2', '$3')} RETURNING owner_key_id`, [
        id,
        caller.keyId,
        caller.wallet,
      ]);
      if (gone.rowCount === 0) return false;
      await tx.query(`UPDATE webhook_key_counts SET webhooks = webhooks - 1 WHERE owner_key_id = $1`, [gone.rows[0].owner_key_id]);
      return true;
    });
  }
}
