import type { SqlDatabase } from '@dob/sql';
import type { ChallengeQuota, ChallengeStore, StoredChallenge } from '../challenge/challenge-store.port';

interface Row {
  nonce: string;
  wallet: string;
  message: string;
  issued_at: Date | string;
  expires_at: Date | string;
}

const toChallenge = (r: Row): StoredChallenge => ({
  nonce: r.nonce,
  wallet: r.wallet,
  message: r.message,
  issuedAt: new Date(r.issued_at),
  expiresAt: new Date(r.expires_at),
});

export class SqlChallengeStore implements ChallengeStore {
  constructor(private readonly db: SqlDatabase) {}

  /** Serialised per wallet by a transaction-scoped advisory lock, so concurrent issues cannot both take the last slot. */
  async save(c: StoredChallenge, requester: string, quota: ChallengeQuota): Promise<'saved' | { full: Date }> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dob.auth.challenges:' || $1))`, [c.wallet]);
      await tx.query('DELETE FROM auth_challenges WHERE expires_at <= $1', [c.issuedAt.toISOString()]);
      // Make room among the requester's own: keep its newest perRequester - 1, so this one is its perRequester-th.
      await tx.query(
        `DELETE FROM auth_challenges WHERE wallet = $1 AND requester = $2 AND nonce NOT IN (
           SELECT nonce FROM auth_challenges WHERE wallet = $1 AND requester = $2 ORDER BY issued_at DESC, nonce LIMIT $3)`,
        [c.wallet, requester, quota.perRequester - 1],
      );
      const { rows } = await tx.query<{ n: number | string; first: Date | string | null }>(
        'SELECT count(*) AS n, min(expires_at) AS first FROM auth_challenges WHERE wallet = $1',
        [c.wallet],
      );
      if (Number(rows[0].n) >= quota.perWallet) return { full: new Date(rows[0].first!) };
      await tx.query('INSERT INTO auth_challenges (nonce, wallet, message, issued_at, expires_at, requester) VALUES ($1, $2, $3, $4, $5, $6)', [
        c.nonce,
        c.wallet,
        c.message,
        c.issuedAt.toISOString(),
        c.expiresAt.toISOString(),
        requester,
      ]);
      return 'saved' as const;
    });
  }

  async outstanding(wallet: string, now: Date): Promise<StoredChallenge[]> {
    const { rows } = await this.db.query<Row>(
      'SELECT nonce, wallet, message, issued_at, expires_at FROM auth_challenges WHERE wallet = $1 AND expires_at > $2 ORDER BY issued_at DESC',
      [wallet, now.toISOString()],
    );
    return rows.map(toChallenge);
  }

  async consume(nonce: string, wallet: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.db.query('DELETE FROM auth_challenges WHERE nonce = $1 AND wallet = $2 AND expires_at > $3', [
      nonce,
      wallet,
      now.toISOString(),
    ]);
    return rowCount === 1;
  }
}
