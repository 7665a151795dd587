import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import type { SqlResult } from '../sql.port';
import { bindExecuteSync, type BindValue } from './bind-message';

type BackendMessage = Parameters<typeof parse.parseResults>[0][number];

interface Prepared {
  readonly name: string;
  /** Parameter type OIDs (Describe S), to serialise values as PGlite's own query() does. */
  readonly paramTypes: readonly number[];
  /** The statement's RowDescription (text format, as a portal of it returns), reused instead of Describe P. */
  readonly rowDescription: BackendMessage | undefined;
}

/** "cached plan must not change result type": a view the statement reads was re-pointed to other columns. */
const RESULT_TYPE_CHANGED = '0A000';

/**
 * Named prepared statements on PGlite's one connection, so each read is planned once, not on every call.
 *
 * PGlite's `query()` parses an unnamed statement each time (Parse, Describe, Bind, Describe, Execute, Sync), and
 * PostgreSQL's planner, compiled to WASM, then costs milliseconds per query for the read API's joins — more than
 * executing them. A named statement keeps its plan in the backend's plan cache (custom plans for the first five
 * executions, then the generic plan when it is no costlier: PostgreSQL docs, PREPARE "Notes"), and PostgreSQL
 * re-analyses it by itself when a table or view it reads changes (plancache invalidation), e.g. when a projection's
 * views are re-pointed to a rebuilt slot. If that changes the result columns, PostgreSQL refuses the old statement
 * (0A000) and it is prepared again once.
 *
 * Statements are keyed by their exact text, at most `capacity` at a time (least recently used are closed), since
 * texts carry values such as LIMIT/OFFSET. Each call holds PGlite's transaction and query locks like `query()`, so it
 * never runs inside another caller's open transaction. Messages go through PGlite's public protocol API
 * (`protocol.serialize`, `execProtocolStream`, `parse.parseResults`), except Bind, Execute and Sync, built here in one
 * buffer (bind-message.ts: PGlite's serializer took ≈ 50 ms to hand over a 7.3 MB parameter).
 */
export class PglitePreparedStatements {
  private readonly statements = new Map<string, Prepared>();
  private counter = 0;

  constructor(
    private readonly db: PGlite,
    private readonly capacity = 256,
  ) {}

  query<R>(text: string, params: readonly unknown[] = []): Promise<SqlResult<R>> {
    return this.db._runExclusiveTransaction(() =>
      this.db.runExclusive(async () => {
        try {
          return await this.run<R>(text, params);
        } catch (e) {
          if ((e as { code?: string }).code !== RESULT_TYPE_CHANGED || !this.statements.has(text)) throw decorate(e, text, params);
          await this.close(text);
          try {
            return await this.run<R>(text, params);
          } catch (again) {
            throw decorate(again, text, params);
          }
        }
      }),
    );
  }

  /**
   * The same inside a transaction the caller holds (PGlite's `transaction()`, whose statements take only the query
   * lock, as here). A statement PostgreSQL refuses as changed is not prepared again here: the refusal aborted the
   * transaction. It is closed instead — PostgreSQL takes a Close in an aborted transaction — so the caller's retry
   * prepares it anew.
   */
  queryInTransaction<R>(text: string, params: readonly unknown[] = []): Promise<SqlResult<R>> {
    return this.db.runExclusive(async () => {
      try {
        return await this.run<R>(text, params);
      } catch (e) {
        if ((e as { code?: string }).code === RESULT_TYPE_CHANGED) await this.close(text);
        throw decorate(e, text, params);
      }
    });
  }

  private async run<R>(text: string, params: readonly unknown[]): Promise<SqlResult<R>> {
    const statement = await this.prepared(text);
    const values = params.map((v, i): BindValue => {
      if (v === null || v === undefined) return null;
      const serializer = this.db.serializers[statement.paramTypes[i]!];
      return serializer ? (serializer(v) as BindValue) : String(v);
    });
    const messages = await this.db.execProtocolStream(bindExecuteSync(statement.name, values), { syncToFs: false });
    if (!this.db.isInTransaction()) await this.db.syncToFs();
    const result = parse.parseResults(statement.rowDescription ? [statement.rowDescription, ...messages] : messages, this.db.parsers)[0]!;
    return { rows: result.rows as R[], rowCount: result.affectedRows ?? result.rows.length };
  }

  private async prepared(text: string): Promise<Prepared> {
    const known = this.statements.get(text);
    if (known) {
      // Most recently used last: Map iteration order is insertion order.
      this.statements.delete(text);
      this.statements.set(text, known);
      return known;
    }
    if (this.statements.size >= this.capacity) await this.close(this.statements.keys().next().value!);
    const name = `dob_s${++this.counter}`;
    const messages = await this.db.execProtocolStream(
      concat([protocol.serialize.parse({ name, text }), protocol.serialize.describe({ type: 'S', name }), protocol.serialize.sync()]),
      { syncToFs: false },
    );
    const statement: Prepared = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      rowDescription: messages.find((m) => m.name === 'rowDescription'),
    };
    this.statements.set(text, statement);
    return statement;
  }

  private async close(text: string): Promise<void> {
    const statement = this.statements.get(text);
    if (!statement) return;
    this.statements.delete(text);
    await this.db.execProtocolStream(concat([protocol.serialize.close({ type: 'S', name: statement.name }), protocol.serialize.sync()]), { syncToFs: false });
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Errors carry the statement like PGlite's own query() errors do. */
function decorate(e: unknown, query: string, params: readonly unknown[]): unknown {
  if (e && typeof e === 'object' && 'code' in e) Object.assign(e, { query, params });
  return e;
}
