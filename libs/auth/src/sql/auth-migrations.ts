import { migrateSchema, type SqlDatabase } from '@dob/sql';

/**
 * Tables of the auth adapters (plain PostgreSQL; same SQL on PGlite). Idempotent, run at start-up, serialised with
 * other processes starting on the same database (two API replicas raced on it: duplicate pg_type key).
 * - auth_challenges: outstanding wallet challenges, consumed by DELETE … RETURNING (single use across instances),
 *   each with its requester.
 * - auth_api_keys: the guard's index, projected from the wallet streams; `revision` orders concurrent writers.
 * - auth_key_epoch: one row whose counter every change to auth_api_keys bumps in the same statement; API instances
 *   that cache keys read it under a lease (SharedKeyCache, docs/auth.md "Key cache").
 */
export const AUTH_MIGRATION = `
CREATE TABLE IF NOT EXISTS auth_challenges (
  nonce      text PRIMARY KEY,
  wallet     text NOT NULL,
  message    text NOT NULL,
  issued_at  timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS auth_challenges_wallet ON auth_challenges (wallet, issued_at DESC);
CREATE INDEX IF NOT EXISTS auth_challenges_expiry ON auth_challenges (expires_at);
-- Who asked (the client's address bucket): a requester's new challenge may replace only its own (issue 29).
ALTER TABLE auth_challenges ADD COLUMN IF NOT EXISTS requester text NOT NULL DEFAULT '';

CREATE TABLE IF NOT EXISTS auth_api_keys (
  key_id         text PRIMARY KEY,
  wallet         text NOT NULL,
  key_hash       text NOT NULL UNIQUE,
  scopes         jsonb NOT NULL,
  rate_limit_rpm integer NOT NULL,
  revoked_at     timestamptz,
  suspended      boolean NOT NULL DEFAULT false,
  revision       integer NOT NULL,
  last_used_at   timestamptz
);
CREATE INDEX IF NOT EXISTS auth_api_keys_wallet ON auth_api_keys (wallet);

CREATE TABLE IF NOT EXISTS auth_key_epoch (
  id    smallint PRIMARY KEY CHECK (id = 1),
  epoch bigint NOT NULL
);
INSERT INTO auth_key_epoch (id, epoch) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;
`;

export async function migrateAuthTables(db: SqlDatabase): Promise<void> {
  await migrateSchema(db, 'dob.auth.migrate', AUTH_MIGRATION);
}
