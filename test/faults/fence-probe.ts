import { createPostgresDatabase } from '@dob/sql';

/**
 * Who wrote each checkpoint (issue 31, the fencing demonstration). The SQL read-model store records on every
 * checkpoint move the lease it committed under (`fence_name`, `fence_token`); this probe, installed by the suite on
 * its own PostgreSQL, is a trigger on `projection_checkpoints` that logs every move made
 * - under a token older than the lease row's current one (an owner that lost its lease and wrote anyway), or
 * - with no fence at all while a lease for that work exists (`projection:<name>`, or the relay's own name).
 * The trigger reads the lease row as the writing statement sees it; the store's fence check (`assertLeaseHeld`,
 * FOR SHARE on that row, just before the move) makes both impossible, so any row logged is a broken fence.
 */
const INSTALL = `
CREATE TABLE IF NOT EXISTS faults_unfenced_writes (
  at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  checkpoint  text        NOT NULL,
  position    text        NOT NULL,
  fence_name  text,
  fence_token int8,
  lease_token int8,
  lease_owner text
);
CREATE OR REPLACE FUNCTION faults_log_unfenced_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE held leases%ROWTYPE;
BEGIN
  IF NEW.fence_name IS NOT NULL THEN
    SELECT * INTO held FROM leases WHERE name = NEW.fence_name;
    IF FOUND AND held.token > NEW.fence_token THEN
      INSERT INTO faults_unfenced_writes (checkpoint, position, fence_name, fence_token, lease_token, lease_owner)
      VALUES (NEW.name, NEW.position, NEW.fence_name, NEW.fence_token, held.token, held.owner_id);
    END IF;
  ELSE
    SELECT * INTO held FROM leases WHERE name IN ('projection:' || NEW.name, NEW.name) LIMIT 1;
    IF FOUND THEN
      INSERT INTO faults_unfenced_writes (checkpoint, position, lease_token, lease_owner)
      VALUES (NEW.name, NEW.position, held.token, held.owner_id);
    END IF;
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS faults_unfenced_write ON projection_checkpoints;
CREATE TRIGGER faults_unfenced_write AFTER UPDATE OF position ON projection_checkpoints
  FOR EACH ROW EXECUTE FUNCTION faults_log_unfenced_write();`;

/** Installs the probe (the checkpoint and lease tables must exist: after the projectors and relays started). */
export async function installFenceProbe(url: string): Promise<void> {
  const db = await createPostgresDatabase({ connectionString: url });
  try {
    await db.exec(INSTALL);
  } finally {
    await db.close();
  }
}

/** Every checkpoint move the probe logged, one line each (empty: no owner wrote without holding its lease). */
export async function unfencedWrites(url: string): Promise<string[]> {
  const db = await createPostgresDatabase({ connectionString: url });
  try {
    const { rows } = await db.query<{
      at: Date;
      checkpoint: string;
      position: string;
      fence_name: string | null;
      fence_token: string | null;
      lease_token: string;
      lease_owner: string;
    }>('SELECT * FROM faults_unfenced_writes ORDER BY at');
    return rows.map(
      (r) =>
        `${r.checkpoint} moved to ${r.position} at ${new Date(r.at).toISOString()} ${
          r.fence_name ? `under ${r.fence_name} token ${r.fence_token}` : 'unfenced'
        } while the lease's token was ${r.lease_token} (held by ${r.lease_owner})`,
    );
  } finally {
    await db.close();
  }
}
