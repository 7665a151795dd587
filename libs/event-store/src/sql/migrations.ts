import type { SqlDatabase } from '@dob/sql';

/** Channel the append function notifies after a commit that wrote events; subscribers LISTEN to wake early. */
export const APPENDED_CHANNEL = 'es_appended';

/** SQLSTATE raised by es_append when an expected version does not hold (custom code, class "ES"). */
export const WRONG_EXPECTED_VERSION_SQLSTATE = 'ES409';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** The loop body of both paths of es_append: the expected-version check, then one result row per stream. */
const CHECK_EXPECTED_AND_RETURN = `      -- 4. Expected versions, against the revision before this append. A stream whose submitted events were all
      --    stored already is an idempotent retry and passes whatever it expected. Raising aborts the statement,
      --    so everything written above is rolled back: all or nothing.
      IF (r.submitted = 0 OR r.n > 0) AND NOT (CASE r.expected -- parenthesised: IF ends at the first bare THEN
          WHEN 'any' THEN true
          WHEN 'no_stream' THEN r.before = -1
          WHEN 'stream_exists' THEN r.before >= 0
          ELSE r.before = r.expected::bigint
        END) THEN
        RAISE EXCEPTION USING
          ERRCODE = '${WRONG_EXPECTED_VERSION_SQLSTATE}',
          MESSAGE = format('stream %s: expected version %s, actual %s', r.stream_id, r.expected, r.before),
          DETAIL = json_build_object('streamId', r.stream_id, 'expected', r.expected, 'actual', r.before)::text;
      END IF;
      stream_index := r.i;
      next_revision := r.rev;
      appended := r.n;
      total := total + r.n;
      RETURN NEXT;
`;

/**
 * es_append, step 1 (every version): per-stream advisory locks, in key order, before anything is written.
 */
const LOCK_STREAMS = `  -- 1. Serialise appenders per stream with transaction-scoped advisory locks, taken in key order (no deadlock;
  --    a sorted DISTINCT subquery is never flattened, so the calls follow its order) and BEFORE anything is
  --    written. This kind of lock assigns no transaction id, so our xid is drawn only once we own our streams:
  --    whoever appended to a stream before us has a lower xid, hence $all, read in (transaction_id, position)
  --    order, carries each stream's revisions in order. (A row lock — SELECT ... FOR UPDATE, an upsert — would
  --    assign the xid first and break that.)
  PERFORM count(pg_advisory_xact_lock(q.k)) FROM (
    SELECT DISTINCT hashtextextended(current_schema() || '/' || s.stream_id, 0) AS k
    FROM jsonb_to_recordset(batch->'streams') AS s(stream_id text)
    ORDER BY 1
  ) q;

`;

/** es_append: whether the batch is fresh (no id repeated in it, none stored yet). */
const FRESH_CHECK = `  fresh := COALESCE((batch->>'distinct_ids')::boolean, false) AND NOT EXISTS (
    SELECT 1 FROM es_events x
    WHERE x.event_id = ANY (ARRAY(SELECT jsonb_array_elements_text(batch->'ids')::uuid))
  );
`;

/** es_append, step 3 (every version): the general path for retries, overlaps and repeated ids. */
const RETRY_PATH = `    -- 3. A retry, a partial overlap or an id twice in the batch: write the events not stored yet, numbering revisions on from each stream's
    --    current one in batch order (positions come from the sequence in that order), record each stream's new
    --    revision, and report per stream what it was before and what was fresh.
    FOR r IN
      WITH cur AS (
        SELECT s.i, s.stream_id, s.expected,
               COALESCE((SELECT st.revision FROM es_streams st WHERE st.stream_id = s.stream_id), -1) AS revision
        FROM jsonb_to_recordset(batch->'streams') AS s(i integer, stream_id text, expected text)
      ), incoming AS (
        SELECT e.*, NOT EXISTS (SELECT 1 FROM es_events x WHERE x.event_id = e.id) AS fresh
        FROM jsonb_to_recordset(batch->'events')
          AS e(i integer, o integer, id uuid, type text, version integer, data jsonb, metadata jsonb)
      ), counted AS (
        SELECT f.i, count(*) AS n FROM incoming f GROUP BY f.i
      ), numbered AS (
        SELECT f.*, c.stream_id, c.revision + row_number() OVER (PARTITION BY f.i ORDER BY f.o) AS rev
        FROM (SELECT DISTINCT ON (f.id) f.* FROM incoming f WHERE f.fresh ORDER BY f.id, f.o) f
        JOIN cur c ON c.i = f.i
      ), ins AS (
        INSERT INTO es_events (stream_id, revision, event_id, type, version, data, metadata)
        SELECT n.stream_id, n.rev, n.id, n.type, n.version, n.data, COALESCE(n.metadata, '{}'::jsonb)
        FROM numbered n ORDER BY n.o
        RETURNING es_events.stream_id, es_events.revision
      ), per_stream AS (
        SELECT ins.stream_id, max(ins.revision) AS rev, count(*)::integer AS n FROM ins GROUP BY ins.stream_id
      ), bumped AS ( -- a data-modifying CTE always runs to completion, read or not
        INSERT INTO es_streams (stream_id, revision) SELECT p.stream_id, p.rev FROM per_stream p
        ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision
      )
      SELECT c.i, c.stream_id, c.expected, c.revision AS before, COALESCE(k.n, 0) AS submitted,
             COALESCE(p.rev, c.revision) AS rev, COALESCE(p.n, 0) AS n
      FROM cur c
      LEFT JOIN counted k ON k.i = c.i
      LEFT JOIN per_stream p ON p.stream_id = c.stream_id
      ORDER BY c.i
`;

/** es_append's end (every version): the general path, then a NOTIFY when anything was written. */
const RETRY_PATH_AND_END = `  ELSE
${RETRY_PATH}    LOOP
${CHECK_EXPECTED_AND_RETURN}    END LOOP;
  END IF;

  IF total > 0 THEN
    PERFORM pg_notify('${APPENDED_CHANNEL}', '');
  END IF;
END
$fn$;
`;

/**
 * Version 4's general path: RETRY_PATH with each stream's revision read from es_events (the last entry of its
 * (stream_id, revision) index) instead of es_streams, nothing written besides the events, and each event's ordinal
 * in the batch counted here (the client no longer sends it).
 */
const RETRY_PATH_V4 = RETRY_PATH.replace(
  `        FROM jsonb_to_recordset(batch->'events')
          AS e(i integer, o integer, id uuid, type text, version integer, data jsonb, metadata jsonb)`,
  `        FROM ROWS FROM (jsonb_to_recordset(batch->'events')
          AS (i integer, id uuid, type text, version integer, data jsonb, metadata jsonb))
          WITH ORDINALITY AS e(i, id, type, version, data, metadata, o)`,
)
  .replace(
    'COALESCE((SELECT st.revision FROM es_streams st WHERE st.stream_id = s.stream_id), -1) AS revision',
    'COALESCE((SELECT x.revision FROM es_events x WHERE x.stream_id = s.stream_id ORDER BY x.revision DESC LIMIT 1), -1) AS revision',
  )
  .replace(
    `      ), bumped AS ( -- a data-modifying CTE always runs to completion, read or not
        INSERT INTO es_streams (stream_id, revision) SELECT p.stream_id, p.rev FROM per_stream p
        ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision
      )`,
    '      )',
  );
if (RETRY_PATH_V4.includes('es_streams') || !RETRY_PATH_V4.includes('WITH ORDINALITY')) throw new Error('RETRY_PATH_V4 was not derived');

/** Raised inside version 4's fast path when an expected version fails against a head the client sent (custom). */
const FAST_PATH_REFUSED_SQLSTATE = 'ES412';

/** Version 4's es_append (migration 4 below; version 5 is derived from it). */
const ES_APPEND_V4 = `CREATE OR REPLACE FUNCTION es_append(batch jsonb)
RETURNS TABLE (stream_index integer, next_revision bigint, appended integer)
LANGUAGE plpgsql AS $fn$
DECLARE
  total integer := 0;
  r record;
  fresh boolean := false;
  sids text[];
  ns integer[];
  revs bigint[];
  expected_hold boolean;
BEGIN
${LOCK_STREAMS}  IF COALESCE((batch->>'distinct_ids')::boolean, false) THEN
    BEGIN
      -- Streams arrive with i = 0, 1, 2, … (buildAppendBatch), so array slot i + 1 is stream i. A client's head is
      -- used only where the batch writes to the stream: only an INSERT can show that it was behind.
      SELECT array_agg(q.stream_id ORDER BY q.i), array_agg(q.n ORDER BY q.i), array_agg(q.head ORDER BY q.i),
             bool_and(CASE q.expected
               WHEN 'any' THEN true
               WHEN 'no_stream' THEN q.head = -1
               WHEN 'stream_exists' THEN q.head >= 0
               ELSE q.head = q.expected::bigint
             END)
        INTO sids, ns, revs, expected_hold
        FROM (SELECT s.i, s.stream_id, s.n, s.expected,
                     COALESCE(CASE WHEN s.n > 0 THEN s.h END,
                              (SELECT x.revision FROM es_events x WHERE x.stream_id = s.stream_id ORDER BY x.revision DESC LIMIT 1),
                              -1) AS head
                FROM jsonb_to_recordset(batch->'streams') AS s(i integer, stream_id text, n integer, h bigint, expected text)
              OFFSET 0) q; -- OFFSET 0: not flattened, so each head is looked up once, not once per use
      IF NOT expected_hold THEN
        RAISE EXCEPTION USING ERRCODE = '${FAST_PATH_REFUSED_SQLSTATE}';
      END IF;
      INSERT INTO es_events (stream_id, revision, event_id, type, version, data, metadata)
      SELECT sids[e.i + 1], revs[e.i + 1] + e.k, e.id, e.type, e.version, e.data, COALESCE(e.metadata, '{}'::jsonb)
      FROM jsonb_to_recordset(batch->'events') AS e(i integer, k integer, id uuid, type text, version integer, data jsonb, metadata jsonb);
      GET DIAGNOSTICS total = ROW_COUNT;
      fresh := true;
    EXCEPTION WHEN unique_violation OR SQLSTATE '${FAST_PATH_REFUSED_SQLSTATE}' THEN
      -- an id stored already, a head that was behind, or an expected version to check against stored heads:
      -- nothing of the above remains, and the general path decides
      total := 0;
    END;
  END IF;
  IF fresh THEN
    RETURN QUERY SELECT (u.o - 1)::integer, u.r + u.n, u.n FROM unnest(revs, ns) WITH ORDINALITY AS u(r, n, o);
  ELSE
${RETRY_PATH_V4}    LOOP
${CHECK_EXPECTED_AND_RETURN}    END LOOP;
  END IF;

  IF total > 0 THEN
    PERFORM pg_notify('${APPENDED_CHANNEL}', '');
  END IF;
END
$fn$;`;

/** Version 5's path for a batch whose every revision the client numbered itself (inserted into version 4's es_append). */
const CLIENT_REVISIONS_PATH = `  IF COALESCE((batch->>'client_revisions')::boolean, false) THEN
    -- Version 5: the client knew every stream's head (from its own committed appends; a head is never ahead), each
    -- stream's expected version held against it, so it numbered the revisions itself (head + ordinal) and sends
    -- each event's stream and revision: the INSERT is all there is, with no subtransaction and nothing returned (the
    -- client knows the results). A head that was behind, or an id stored already, ends the statement with
    -- unique_violation, and the client sends the batch again without "client_revisions", down version 4's paths. The
    -- locks above still come first: a second try is a new transaction, its xid drawn after its locks.
    INSERT INTO es_events (stream_id, revision, event_id, type, version, data, metadata)
    SELECT e.s, e.r, e.id, e.type, e.version, e.data, COALESCE(e.metadata, '{}'::jsonb)
    FROM jsonb_to_recordset(batch->'events') AS e(s text, r bigint, id uuid, type text, version integer, data jsonb, metadata jsonb);
    IF FOUND THEN
      PERFORM pg_notify('${APPENDED_CHANNEL}', '');
    END IF;
    RETURN;
  END IF;
`;

/** Version 5's es_append: version 4's with the client-revisions path first (after the locks). */
const ES_APPEND_V5 = ES_APPEND_V4.replace(
  `${LOCK_STREAMS}  IF COALESCE((batch->>'distinct_ids')`,
  `${LOCK_STREAMS}${CLIENT_REVISIONS_PATH}  IF COALESCE((batch->>'distinct_ids')`,
);
if (!ES_APPEND_V5.includes('client_revisions')) throw new Error('ES_APPEND_V5 was not derived');

/**
 * The event store's own schema, versioned in `es_schema_migrations`. Every statement is idempotent
 * (IF NOT EXISTS / OR REPLACE) so a half-applied migration can simply run again.
 *
 * es_events — one row per event:
 *  - position bigserial: the global sequence (GlobalPosition.prepare);
 *  - transaction_id xid8 DEFAULT pg_current_xact_id(): the appending transaction (GlobalPosition.commit).
 *    $all is read in (transaction_id, position) order and only below pg_snapshot_xmin(pg_current_snapshot()),
 *    i.e. only rows of transactions that have finished: no later commit can land before a position already read.
 *    This is Emmett's approach (emmett-postgresql readMessagesBatch: "transaction_id < pg_snapshot_xmin(
 *    pg_current_snapshot()) ... ORDER BY transaction_id, global_position"); a plain sequence read is what let
 *    Marten's async daemon skip committed events under concurrent appends (Marten discussion #4953, issues #4964,
 *    #4977). The (transaction_id, position) index serves those reads and the head lookup; (type, transaction_id,
 *    position) (version 6) serves reads filtered by type.
 *  - UNIQUE (stream_id, revision): the last line of optimistic concurrency; UNIQUE (event_id): idempotency.
 * es_streams (versions 1–3) — each stream's last revision, looked up by key; since version 4 a view over es_events
 * (heads come from the appending client or from the (stream_id, revision) index, see there).
 * Appenders to one stream serialise on a transaction-scoped advisory lock taken before any write (see es_append for
 * why not a row lock); expected versions are checked under it. es_events is append-only (triggers, version 4).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    // Databases migrated before version 2 also got the first es_append here; version 2 replaces it either way.
    name: 'events, streams and the append function',
    sql: `
CREATE TABLE IF NOT EXISTS es_events (
  position       bigserial   PRIMARY KEY,
  transaction_id xid8        NOT NULL DEFAULT pg_current_xact_id(),
  stream_id      text        NOT NULL,
  revision       bigint      NOT NULL,
  event_id       uuid        NOT NULL,
  type           text        NOT NULL,
  version        integer     NOT NULL,
  data           jsonb       NOT NULL,
  metadata       jsonb       NOT NULL DEFAULT '{}'::jsonb,
  recorded_at    timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT es_events_stream_revision_key UNIQUE (stream_id, revision),
  CONSTRAINT es_events_event_id_key UNIQUE (event_id)
);
CREATE INDEX IF NOT EXISTS es_events_commit_order_idx ON es_events (transaction_id, position);

CREATE TABLE IF NOT EXISTS es_streams (
  stream_id text   PRIMARY KEY,
  revision  bigint NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'es_append: one plain INSERT for a batch of fresh events; streams looked up by key',
    sql: `
-- Appends a whole batch (several streams) in one statement, hence one round trip and one transaction (replaces the
-- version migration 1 created, which always took the path of step 3 below).
-- batch = {"streams":[{"i":0,"stream_id":"pool-1","expected":"any"|"no_stream"|"stream_exists"|"<n>","n":2}],
--          "events":[{"i":0,"o":0,"k":1,"id":"<uuid>","type":"...","version":1,"data":{},"metadata":{}}],
--          "distinct_ids":true, "ids":["<uuid>", ...]}
-- i = stream index in the batch, o = ordinal of the event in the batch (sets global order), k = ordinal of the
-- event among its stream's events in the batch (from 1), n = the stream's event count in the batch.
CREATE OR REPLACE FUNCTION es_append(batch jsonb)
RETURNS TABLE (stream_index integer, next_revision bigint, appended integer)
LANGUAGE plpgsql AS $fn$
DECLARE
  total integer := 0;
  r record;
  fresh boolean;
BEGIN
${LOCK_STREAMS}  -- Each statement below takes a fresh READ COMMITTED snapshot under the locks (a previous holder's commit is
  -- visible before its lock is released).
  -- 2. The common case first: no id repeated in the batch (the client says so) and none stored yet (one index
  --    probe per id, under the locks). Then every event is written, and a stream's revisions are its current
  --    one + the event's ordinal among the stream's events in the batch (k, counted by the client): one INSERT,
  --    no dedupe sort, no window, nothing read back.
${FRESH_CHECK}  IF fresh THEN
    FOR r IN
      WITH cur AS (
        SELECT s.i, s.stream_id, s.expected, s.n,
               COALESCE((SELECT st.revision FROM es_streams st WHERE st.stream_id = s.stream_id), -1) AS revision
        FROM jsonb_to_recordset(batch->'streams') AS s(i integer, stream_id text, expected text, n integer)
      ), ins AS (
        INSERT INTO es_events (stream_id, revision, event_id, type, version, data, metadata)
        SELECT c.stream_id, c.revision + e.k, e.id, e.type, e.version, e.data, COALESCE(e.metadata, '{}'::jsonb)
        FROM jsonb_to_recordset(batch->'events')
          AS e(i integer, o integer, k integer, id uuid, type text, version integer, data jsonb, metadata jsonb)
        JOIN cur c ON c.i = e.i
        ORDER BY e.o
      ), bumped AS (
        INSERT INTO es_streams (stream_id, revision) SELECT c.stream_id, c.revision + c.n FROM cur c WHERE c.n > 0
        ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision
      )
      SELECT c.i, c.stream_id, c.expected, c.revision AS before, c.n AS submitted, c.revision + c.n AS rev, c.n AS n
      FROM cur c
      ORDER BY c.i
    LOOP
${CHECK_EXPECTED_AND_RETURN}    END LOOP;
${RETRY_PATH_AND_END}`,
  },
  {
    version: 3,
    name: 'es_append: a fresh batch is one INSERT straight from the batch, its streams as arrays; a stored id falls back',
    sql: `
-- Same batch, same results as version 2 (see there). The fresh path drops what the raw INSERT it is measured against
-- does not do (bench/event-store.bench.ts, docs/benchmarks.md "Event-store append"):
-- - no probe of every id before writing: a batch whose ids are distinct (the client says so) is inserted at once,
--   and an id stored already makes the unique index refuse it; that unique_violation rolls back to the block's
--   start (a subtransaction, one per append) and the general path (step 3) takes the batch, as a retry;
-- - streams are read once into arrays indexed by stream index, and each event's stream and revision are taken from
--   them: no join, hence no sort (a function scan feeding an INSERT writes rows, and draws their positions, in
--   array order, which is batch order);
-- - expected versions are checked by one query after the INSERT (a refusal aborts the whole statement, so nothing
--   stays written), and the result rows come from the arrays.
CREATE OR REPLACE FUNCTION es_append(batch jsonb)
RETURNS TABLE (stream_index integer, next_revision bigint, appended integer)
LANGUAGE plpgsql AS $fn$
DECLARE
  total integer := 0;
  r record;
  fresh boolean := false;
  sids text[];
  ns integer[];
  revs bigint[];
  bad record;
BEGIN
${LOCK_STREAMS}  IF COALESCE((batch->>'distinct_ids')::boolean, false) THEN
    BEGIN
      -- Streams arrive with i = 0, 1, 2, … (buildAppendBatch), so array slot i + 1 is stream i.
      SELECT array_agg(s.stream_id ORDER BY s.i), array_agg(s.n ORDER BY s.i),
             array_agg(COALESCE((SELECT st.revision FROM es_streams st WHERE st.stream_id = s.stream_id), -1) ORDER BY s.i)
        INTO sids, ns, revs
        FROM jsonb_to_recordset(batch->'streams') AS s(i integer, stream_id text, n integer);
      INSERT INTO es_events (stream_id, revision, event_id, type, version, data, metadata)
      SELECT sids[e.i + 1], revs[e.i + 1] + e.k, e.id, e.type, e.version, e.data, COALESCE(e.metadata, '{}'::jsonb)
      FROM jsonb_to_recordset(batch->'events') AS e(i integer, k integer, id uuid, type text, version integer, data jsonb, metadata jsonb);
      GET DIAGNOSTICS total = ROW_COUNT;
      fresh := true;
    EXCEPTION WHEN unique_violation THEN
      total := 0; -- an id stored already (a retry or an overlap): nothing of the above remains
    END;
  END IF;
  IF fresh THEN
    SELECT s.stream_id, s.expected, revs[s.i + 1] AS before INTO bad
      FROM jsonb_to_recordset(batch->'streams') AS s(i integer, stream_id text, expected text)
     WHERE NOT (CASE s.expected
         WHEN 'any' THEN true
         WHEN 'no_stream' THEN revs[s.i + 1] = -1
         WHEN 'stream_exists' THEN revs[s.i + 1] >= 0
         ELSE revs[s.i + 1] = s.expected::bigint
       END)
     ORDER BY s.i LIMIT 1;
    IF FOUND THEN
      RAISE EXCEPTION USING
        ERRCODE = '${WRONG_EXPECTED_VERSION_SQLSTATE}',
        MESSAGE = format('stream %s: expected version %s, actual %s', bad.stream_id, bad.expected, bad.before),
        DETAIL = json_build_object('streamId', bad.stream_id, 'expected', bad.expected, 'actual', bad.before)::text;
    END IF;
    INSERT INTO es_streams (stream_id, revision)
    SELECT u.s, u.r + u.n FROM unnest(sids, revs, ns) AS u(s, r, n) WHERE u.n > 0
    ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision;
    RETURN QUERY SELECT (u.o - 1)::integer, u.r + u.n, u.n FROM unnest(revs, ns) WITH ORDINALITY AS u(r, n, o);
${RETRY_PATH_AND_END}`,
  },
  {
    version: 4,
    name: 'es_append: stream heads come from the client or from es_events; es_streams is no longer kept',
    sql: `
-- Same results as versions 2 and 3. What changed: writing es_streams (one upsert per stream per append) cost as much
-- as the rest of the append's guarantees together (docs/benchmarks.md "Event-store append, fifth look"), so it is
-- gone. A stream's head now comes, in order of preference, from
-- - the client: batch.streams[].h, the revision this process last saw the stream reach (SqlEventStore's StreamHeads).
--   A head can only be stale by being BEHIND: revisions are gapless and never removed (es_events refuses UPDATE,
--   DELETE and TRUNCATE below), and the client learns a head only from a committed append. A head that is behind
--   makes the INSERT hit an existing (stream_id, revision): unique_violation, and the general path takes the batch;
-- - es_events: the last entry of the stream's (stream_id, revision) index, for a stream the client does not know,
--   and always on the general path.
-- Expected versions are checked against those heads before the INSERT; a refusal there may rest on a stale head,
-- so it also hands the batch to the general path, which checks against the stored heads and raises ES409 itself.
-- Locks, positions and the general path are those of version 3, except that the general path counts each event's
-- ordinal itself (WITH ORDINALITY): the client no longer sends "o".
${ES_APPEND_V4}

-- Heads taken from es_events stay right only while events stay as written: an event store is append-only, and now
-- the database says so. (Surgery needs ALTER TABLE es_events DISABLE TRIGGER, and every process restarted after.)
CREATE OR REPLACE FUNCTION es_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'es_events is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END
$fn$;
DROP TRIGGER IF EXISTS es_events_no_update_or_delete ON es_events;
CREATE TRIGGER es_events_no_update_or_delete BEFORE UPDATE OR DELETE ON es_events
  FOR EACH ROW EXECUTE FUNCTION es_events_append_only();
DROP TRIGGER IF EXISTS es_events_no_truncate ON es_events;
CREATE TRIGGER es_events_no_truncate BEFORE TRUNCATE ON es_events
  FOR EACH STATEMENT EXECUTE FUNCTION es_events_append_only();

-- es_streams goes; a view of the same name keeps a process of an earlier version (its stats() reads it) working
-- through a rolling upgrade. Every stream has exactly one revision 0.
DO $drop$ BEGIN
  IF (SELECT c.relkind FROM pg_class c WHERE c.oid = to_regclass('es_streams')) = 'r' THEN DROP TABLE es_streams; END IF;
END $drop$;
CREATE OR REPLACE VIEW es_streams AS SELECT stream_id, max(revision) AS revision FROM es_events GROUP BY stream_id;
`,
  },
  {
    version: 5,
    name: 'es_append: a batch the client numbered (client_revisions) is one INSERT; the client retries a refusal',
    sql: `
-- Version 4's function, and the same results for a batch without "client_revisions" (every batch of a process of an
-- earlier version during a rolling upgrade). With it, see CLIENT_REVISIONS_PATH in migrations.ts.
${ES_APPEND_V5}
`,
  },
  {
    version: 6,
    name: "es_events_type_order_idx: a filtered $all read walks its types' ranges instead of every row between matches",
    // A filtered read (buildReadAllQuery) merges one ordered range per type; without this index it had to walk $all.
    // Built inside the migration's transaction: appends wait for it once, seconds on a history of millions.
    sql: `CREATE INDEX IF NOT EXISTS es_events_type_order_idx ON es_events (type, transaction_id, position);`,
  },
];

/**
 * Applies the migrations not recorded yet, in one transaction under an advisory lock (two processes starting
 * together must not both run them). Safe to call on every start.
 */
export async function migrateEventStore(db: SqlDatabase, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('dob_event_store_migrations'))`);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS es_schema_migrations (
        version    integer     PRIMARY KEY,
        name       text        NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM es_schema_migrations');
    const done = new Set(rows.map((r) => Number(r.version)));
    const applied: number[] = [];
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO es_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}
