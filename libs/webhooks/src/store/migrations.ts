import { migrateSchema, type SqlDatabase } from '@dob/sql';

/**
 * Service-owned webhook state and the durable delivery queue. These are plain tables, not projection slots: a
 * fan-out replay must never re-send, and deterministic delivery ids + ON CONFLICT DO NOTHING make it a no-op.
 *
 * The 5-per-key limit is a counter row per API key, bumped by one atomic upsert whose WHERE refuses the sixth
 * (`ON CONFLICT DO UPDATE … WHERE webhooks < 5`): PostgreSQL row-locks the conflicting row and re-checks the WHERE
 * against the latest committed version, so concurrent registrations serialise on that row and at most 5 win.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS webhooks (
  id                text        PRIMARY KEY,
  owner_key_id      text        NOT NULL,
  url               text        NOT NULL,
  events            jsonb       NOT NULL,
  secret_sealed     text        NOT NULL,
  is_active         boolean     NOT NULL DEFAULT true,
  failure_count     int4        NOT NULL DEFAULT 0,
  last_triggered_at timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webhooks_owner ON webhooks (owner_key_id, created_at);
-- The wallet of the owning key (set at registration, and from ApiKeyRevoked for rows registered before the column
-- existed), and when that key was revoked: such a webhook is inactive for good, listed and deletable by the
-- wallet's other keys (docs/webhooks.md, issue 29).
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS owner_wallet text;
ALTER TABLE webhooks ADD COLUMN IF NOT EXISTS key_revoked_at timestamptz;
CREATE INDEX IF NOT EXISTS webhooks_wallet ON webhooks (owner_wallet);
CREATE TABLE IF NOT EXISTS webhook_key_counts (
  owner_key_id text PRIMARY KEY,
  webhooks     int4 NOT NULL CHECK (webhooks >= 0)
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id                 text        PRIMARY KEY,
  webhook_id         text        NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id           text        NOT NULL,
  event_type         text        NOT NULL,
  body               text        NOT NULL,
  status             text        NOT NULL,
  attempts           int4        NOT NULL DEFAULT 0,
  failed_in_cycle    int4        NOT NULL DEFAULT 0,
  next_attempt_at    timestamptz,
  lease_token        text,
  lease_until        timestamptz,
  last_response_code int4,
  last_error         text,
  created_at         timestamptz NOT NULL,
  delivered_at       timestamptz
);
-- Matches the claim's ORDER BY (next_attempt_at, id), so a claim reads only the rows it takes instead of sorting
-- every pending row.
CREATE INDEX IF NOT EXISTS webhook_deliveries_due2 ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at DESC, id);
CREATE TABLE IF NOT EXISTS webhook_delivery_attempts (
  delivery_id   text        NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt       int4        NOT NULL,
  attempted_at  timestamptz NOT NULL,
  response_code int4,
  duration_ms   int4        NOT NULL,
  error         text,
  PRIMARY KEY (delivery_id, attempt)
);
-- The agents' event feed (feed/feed-log.ts): every notification the fan-out makes, keyed by the $all position of
-- the domain event it came from. One writer (the fan-out) commits them in position order, so reading by position
-- has no gaps.
CREATE TABLE IF NOT EXISTS agent_event_feed (
  commit_pos   int8        NOT NULL,
  prepare_pos  int8        NOT NULL,
  event_id     text        NOT NULL UNIQUE,
  event        text        NOT NULL,
  pool_address text,
  parties      text[]      NOT NULL,
  body         text        NOT NULL,
  recorded_at  timestamptz NOT NULL,
  PRIMARY KEY (commit_pos, prepare_pos)
);
-- The position up to which the feed was pruned: older cursors are answered 410.
CREATE TABLE IF NOT EXISTS agent_event_feed_horizon (
  id          int4 PRIMARY KEY CHECK (id = 1),
  commit_pos  int8 NOT NULL,
  prepare_pos int8 NOT NULL
);
`;

const migrated = new WeakSet<SqlDatabase>();

/** Idempotent; serialised by an advisory lock so several processes starting at once do not race on DDL. */
export async function migrateWebhooks(db: SqlDatabase): Promise<void> {
  if (migrated.has(db)) return;
  await migrateSchema(db, 'dob.webhooks.migrate', SCHEMA);
  migrated.add(db);
}
