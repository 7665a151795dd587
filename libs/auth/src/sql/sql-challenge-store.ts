import type { SqlDatabase } from '@dob/sql';
import type { ChallengeStore, StoredChallenge } from '../challenge/challenge-store.port';

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

  async save(c: StoredChallenge, maxPerWallet: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM auth_challenges WHERE expires_at <= $1', [c.issuedAt.toISOString()]);
      await tx.query('INSERT INTO auth_challenges (nonce, wallet, message, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        c.nonce,
        c.wallet,
        c.message,
        c.issuedAt.toISOString(),
        c.expiresAt.toISOString(),
      ]);
      await tx.query(
        `DELETE FROM auth_challenges WHERE wallet = $1 AND nonce NOT IN (
           SELECT nonce FROM auth_challenges WHERE wallet = $1 ORDER BY issued_at DESC, nonce LIMIT $2)`,
        [c.wallet, maxPerWallet],
      );
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
