import type { SqlDatabase } from '@dob/sql';
import type { KeyChangeSignal } from '../keys/key-change-signal.port';
import { API_KEYS_CHANGED } from './embedded-key-cache';

/**
 * The key epoch in the database that holds the keys: `auth_key_epoch.epoch`, bumped by SqlApiKeyIndex in the very
 * statement that changes a key, so every writer (an API instance, the ops CLI) announces without another server and
 * no crash can separate a change from its announcement. NOTIFY `auth_api_keys_changed` is the prompt path.
 */
export class SqlKeyChangeSignal implements KeyChangeSignal {
  constructor(private readonly db: SqlDatabase) {}

  async readEpoch(): Promise<string> {
    const { rows } = await this.db.query<{ epoch: string }>('SELECT epoch::text AS epoch FROM auth_key_epoch WHERE id = 1');
    if (!rows[0]) throw new Error('auth_key_epoch has no row (auth migration not applied)');
    return rows[0].epoch;
  }

  listen(onChange: () => void): Promise<() => Promise<void>> {
    return this.db.listen(API_KEYS_CHANGED, onChange);
  }
}
