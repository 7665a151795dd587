import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SqlDatabase, SqlExecutor } from '@dob/sql';
import { ConfigError } from './app-config';

/**
 * Secrets that several processes must share (the webhook-secret encryption key, the JWT signing key) leave a
 * fingerprint with the data they protect: HMAC-SHA256(secret, "dob/secret-fingerprint/<name>"), which tells keys
 * apart without revealing them. The first process to start records it; every later one compares and refuses to
 * start on a mismatch — so a notifier given another key than the API fails at start with one line, instead of at
 * its first delivery.
 */
export class SecretMismatchError extends ConfigError {}

export interface SecretFingerprintCheck {
  /** Row name, e.g. "webhook_secret_key". */
  readonly name: string;
  /** The variable an operator sets, named in the error. */
  readonly variable: string;
  readonly secret: Buffer;
  /**
   * Data protected before fingerprints were recorded: when no fingerprint exists yet, does this secret still open
   * it? (false = refuse, as for a mismatch). Absent = nothing to check.
   */
  readonly opensExistingData?: (tx: SqlExecutor) => Promise<boolean>;
}

export function secretFingerprint(name: string, secret: Buffer): string {
  return createHmac('sha256', secret).update(`dob/secret-fingerprint/${name}`).digest('hex');
}

const SCHEMA = `CREATE TABLE IF NOT EXISTS secret_fingerprints (
  name        text        PRIMARY KEY,
  fingerprint text        NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT clock_timestamp()
)`;

export async function checkSecretFingerprint(db: SqlDatabase, check: SecretFingerprintCheck): Promise<void> {
  const mine = secretFingerprint(check.name, check.secret);
  const recorded = await db.transaction(async (tx) => {
    // Serialises the DDL and the first insert of processes starting together.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dob.secret_fingerprints'))`);
    await tx.exec(SCHEMA);
    const { rows } = await tx.query<{ fingerprint: string; recorded_at: Date | string }>(
      `SELECT fingerprint, recorded_at FROM secret_fingerprints WHERE name = $1`,
      [check.name],
    );
    if (rows[0]) return rows[0];
    if (check.opensExistingData && !(await check.opensExistingData(tx))) {
      return { fingerprint: 'unrecorded (data written before fingerprints were kept)', recorded_at: 'earlier' };
    }
    await tx.query(`INSERT INTO secret_fingerprints (name, fingerprint) VALUES ($1, $2)`, [check.name, mine]);
    return { fingerprint: mine, recorded_at: 'now' };
  });
  if (!sameHex(recorded.fingerprint, mine)) {
    const when = recorded.recorded_at instanceof Date ? recorded.recorded_at.toISOString() : recorded.recorded_at;
    throw new SecretMismatchError(
      `${check.variable} is not the key this database's data was protected with (recorded fingerprint ` +
        `${recorded.fingerprint.slice(0, 12)}… at ${when}, this process has ${mine.slice(0, 12)}…): give every process ` +
        `sharing DATABASE_URL the same ${check.variable}`,
    );
  }
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
