import { createHash } from 'node:crypto';
import { copyText, type CopyValue, type SqlExecutor } from '@dob/sql';
import {
  parseFields,
  parseIndexKey,
  type CollectionSpec,
  type CollectionSpecs,
  type Doc,
  type FieldType,
  type IndexSpec,
  type ParsedField,
} from '../documents/collections';
import type { DocumentWrite } from '../documents/batch-state';
import type { BulkDocumentSource } from '../documents/prefetch';
import type { ProjectionTables } from '../projection';

/**
 * Collections as SQL tables: one column per field, the key as primary key, the declared indexes. Text is
 * COLLATE "C" (code-point order, whatever the database's default), so ORDER BY gives the order MongoDB's binary
 * string comparison gives and the two stores page identically.
 */
const COLUMN: Record<FieldType, string> = {
  text: 'text COLLATE "C"',
  int: 'int',
  int8: 'int8',
  amount: 'numeric',
  decimal: 'numeric',
  bool: 'boolean',
  timestamp: 'timestamptz',
};
/**
 * Types in json_to_recordset's column list (a flush sends documents as one JSON array per table). `json`, not
 * `jsonb`: the array is parsed once and thrown away, and jsonb's binary form cost PostgreSQL about a quarter more per
 * insert of 5,000 wallet-history rows (50–72 ms against 40–42 ms, same table, back to back).
 */
const RECORD: Record<FieldType, string> = { ...COLUMN, text: 'text' };

/**
 * The tables of a slot with their primary keys and indexes. `deferServing`: only the lookup indexes (IndexSpec.lookup)
 * now; the others are left to servingIndexesSql, to be built in bulk before the slot serves.
 */
export function createTablesSql(tables: ProjectionTables, collections: CollectionSpecs, options: { deferServing?: boolean } = {}): string {
  return Object.entries(collections)
    .map(([name, spec]) => createTableSql(tables[name]!, spec, options.deferServing ?? false))
    .join(';\n');
}

function createTableSql(table: string, spec: CollectionSpec, deferServing: boolean): string {
  const columns = parseFields(spec).map((f) => `${f.name} ${COLUMN[f.type]}${f.nullable ? '' : ' NOT NULL'}`);
  const statements = [`CREATE TABLE ${table} (${columns.join(', ')}, PRIMARY KEY (${spec.key.join(', ')}))`];
  for (const index of spec.indexes ?? []) {
    if (!deferServing || index.lookup) statements.push(`CREATE INDEX ON ${table} (${indexColumns(index)})`);
  }
  return statements.join(';\n');
}

function indexColumns(index: IndexSpec): string {
  return index.keys
    .map((k) => {
      const key = parseIndexKey(k);
      return `${key.field} ${key.direction.toUpperCase()}${key.nulls ? ` NULLS ${key.nulls.toUpperCase()}` : ''}`;
    })
    .join(', ');
}

/**
 * The statements that build the indexes createTablesSql deferred, one per index (each its own short transaction:
 * a long one would hold back every gap-safe `$all` read of the cluster). Named, so a run cut short and repeated
 * skips what it built.
 */
export function servingIndexesSql(tables: ProjectionTables, collections: CollectionSpecs): string[] {
  return Object.entries(collections).flatMap(([name, spec]) =>
    (spec.indexes ?? []).flatMap((index, i) =>
      index.lookup ? [] : [`CREATE INDEX IF NOT EXISTS ${servingIndexName(tables[name]!, i)} ON ${tables[name]} (${indexColumns(index)})`],
    ),
  );
}

/** `<table>_s<i>`; PostgreSQL cuts names at 63 bytes, so a long table's names keep a hash of it instead of its tail. */
function servingIndexName(table: string, i: number): string {
  const name = `${table}_s${i}`;
  if (name.length <= 63) return name;
  return `${table.slice(0, 48)}_${createHash('sha256').update(table).digest('hex').slice(0, 8)}_s${i}`;
}

/** Columns as selected: exact numbers and int8 as text, so no driver turns them into floats. */
function selectList(fields: readonly ParsedField[]): string {
  return fields.map((f) => (f.type === 'amount' || f.type === 'decimal' || f.type === 'int8' ? `${f.name}::text AS ${f.name}` : f.name)).join(', ');
}

function decode(fields: readonly ParsedField[], row: Record<string, unknown>): Doc {
  const out: Record<string, Doc[string]> = {};
  for (const f of fields) {
    const v = row[f.name];
    if (v === null || v === undefined) {
      out[f.name] = null;
      continue;
    }
    switch (f.type) {
      case 'amount':
        out[f.name] = BigInt(v as string);
        break;
      case 'int8':
        out[f.name] = Number(v);
        break;
      case 'timestamp':
        out[f.name] = (v instanceof Date ? v : new Date(v as string)).toISOString();
        break;
      default:
        out[f.name] = v as string | number | boolean;
    }
  }
  return Object.freeze(out);
}

/** A value as a query parameter (exact numbers as text, cast in SQL). */
const param = (v: Doc[string]): unknown => (typeof v === 'bigint' ? v.toString() : v);
const cast = (f: ParsedField): string => (f.type === 'amount' || f.type === 'decimal' ? '::numeric' : f.type === 'timestamp' ? '::timestamptz' : '');

/** Reads committed rows of one slot's tables (inside the batch's transaction). */
export class SqlDocumentSource implements BulkDocumentSource {
  private readonly fields = new Map<string, ParsedField[]>();

  constructor(
    private readonly tx: SqlExecutor,
    private readonly tables: ProjectionTables,
    private readonly collections: CollectionSpecs,
  ) {
    for (const [name, spec] of Object.entries(collections)) this.fields.set(name, parseFields(spec));
  }

  async get(collection: string, key: Doc): Promise<Doc | null> {
    const spec = this.collections[collection]!;
    const where: Record<string, Doc[string]> = {};
    for (const k of spec.key) where[k] = key[k] ?? null;
    return (await this.select(collection, where, ''))[0] ?? null;
  }

  find(collection: string, where: Doc): Promise<Doc[]> {
    return this.select(collection, where, ` ORDER BY ${this.collections[collection]!.key.join(', ')}`);
  }

  getMany(collection: string, keys: readonly Doc[]): Promise<Doc[]> {
    return this.selectJoined(collection, this.collections[collection]!.key, keys);
  }

  findMany(collection: string, fields: readonly string[], wheres: readonly Doc[]): Promise<Doc[]> {
    return this.selectJoined(collection, fields, wheres);
  }

  /** Rows whose `on` fields equal those of any of `values`: one join against the values sent as a JSON array. */
  private async selectJoined(collection: string, on: readonly string[], values: readonly Doc[]): Promise<Doc[]> {
    if (values.length === 0) return [];
    const fields = this.fields.get(collection)!;
    const typed = on.map((name) => {
      const f = fields.find((x) => x.name === name);
      if (!f) throw new Error(`${collection}: no field ${name}`);
      return `${name} ${COLUMN[f.type]}`;
    });
    const { rows } = await this.tx.query<Record<string, unknown>>(
      `SELECT ${selectList(fields)} FROM ${this.tables[collection]}
         JOIN (SELECT DISTINCT * FROM json_to_recordset($1::json) AS x(${typed.join(', ')})) k USING (${on.join(', ')})`,
      [
        toJson(
          values.map((v) => Object.fromEntries(on.map((n) => [n, v[n]]))),
          fields.filter((f) => on.includes(f.name)),
        ),
      ],
    );
    return rows.map((r) => decode(fields, r));
  }

  private async select(collection: string, where: Doc, order: string): Promise<Doc[]> {
    const fields = this.fields.get(collection)!;
    const params: unknown[] = [];
    const conditions = Object.entries(where).map(([name, v]) => {
      const f = fields.find((x) => x.name === name);
      if (!f) throw new Error(`${collection}: no field ${name}`);
      if (v === null) return `${name} IS NULL`;
      params.push(param(v));
      return `${name} = $${params.length}${cast(f)}`;
    });
    const { rows } = await this.tx.query<Record<string, unknown>>(
      `SELECT ${selectList(fields)} FROM ${this.tables[collection]} WHERE ${conditions.join(' AND ') || 'true'}${order}`,
      params,
    );
    return rows.map((r) => decode(fields, r));
  }
}

/**
 * Documents as one JSON array, exact numbers (the bigint `amount` fields) as decimal strings. Those fields are
 * converted on a shallow copy: a replacer function costs JSON.stringify a call per value, about twice the time for
 * a page of 5,000 documents.
 */
function toJson(docs: readonly Doc[], fields: readonly ParsedField[]): string {
  const exact = fields.filter((f) => f.type === 'amount').map((f) => f.name);
  if (exact.length === 0) return JSON.stringify(docs);
  return JSON.stringify(
    docs.map((doc) => {
      const out: Record<string, unknown> = { ...doc };
      for (const name of exact) if (typeof out[name] === 'bigint') out[name] = (out[name] as bigint).toString();
      return out;
    }),
  );
}

/** How a batch's writes go in (writeDocuments): which are new rows, and which collections to try as new rows. */
export interface WritePlan {
  /** Writes of documents the slot is known not to hold: loaded by COPY. */
  readonly fresh: ReadonlySet<DocumentWrite>;
  /**
   * Collections whose other writes are tried by COPY too, under a savepoint, before the upsert: ones every write has
   * so far added to (SlotCache.writesOnlyNew) but whose documents are no longer all known.
   */
  readonly tryNew: ReadonlySet<string>;
  /** A collection tried as new rows had one taken: its writes went by the upsert after all. */
  readonly replaced: (collection: string) => void;
}

/** A unique violation: the row is there already. */
const isDuplicateKey = (e: unknown) => (e as { code?: unknown } | null)?.code === '23505';

/**
 * Persists a batch's writes, per table: the documents the plan says are new by COPY, the others by one upsert of
 * them all (documents as a JSON array), or — for a collection the plan tries as new rows — by COPY under a savepoint,
 * the upsert only if a row was taken. COPY into a rebuild's table (primary key and lookup indexes) cost PostgreSQL
 * about a third of the upsert for the same 807,502 wallet-history rows (2.9 s against 7.3 s, this machine).
 */
export async function writeDocuments(
  tx: SqlExecutor,
  tables: ProjectionTables,
  collections: CollectionSpecs,
  writes: readonly DocumentWrite[],
  plan?: WritePlan,
): Promise<void> {
  const byCollection = new Map<string, { known: Doc[]; fresh: Doc[] }>();
  for (const w of writes) {
    let docs = byCollection.get(w.collection);
    if (!docs) byCollection.set(w.collection, (docs = { known: [], fresh: [] }));
    (plan?.fresh.has(w) ? docs.fresh : docs.known).push(w.doc);
  }
  for (const [collection, docs] of byCollection) {
    const spec = collections[collection]!;
    const fields = parseFields(spec);
    const names = fields.map((f) => f.name);
    const copy = (rows: readonly Doc[]) => tx.copyIn(tables[collection]!, names, copyText(rows.map((doc) => names.map((n) => doc[n] as CopyValue))));
    if (docs.fresh.length) await copy(docs.fresh);
    if (docs.known.length === 0) continue;
    if (plan?.tryNew.has(collection)) {
      await tx.exec('SAVEPOINT try_new_rows');
      try {
        await copy(docs.known);
        await tx.exec('RELEASE SAVEPOINT try_new_rows');
        continue;
      } catch (e) {
        if (!isDuplicateKey(e)) throw e;
        await tx.exec('ROLLBACK TO SAVEPOINT try_new_rows');
        plan.replaced(collection);
      }
    }
    const updates = fields.filter((f) => !spec.key.includes(f.name)).map((f) => `${f.name} = EXCLUDED.${f.name}`);
    await tx.query(
      `INSERT INTO ${tables[collection]} (${names.join(', ')})
       SELECT ${names.join(', ')} FROM json_to_recordset($1::json) AS x(${fields.map((f) => `${f.name} ${RECORD[f.type]}`).join(', ')})
       ON CONFLICT (${spec.key.join(', ')}) DO ${updates.length ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`,
      [toJson(docs.known, fields)],
    );
  }
}

/** The table's row count if it is at most `limit`, else undefined (reads no more than limit + 1 rows). */
export async function countUpTo(db: SqlExecutor, relation: string, limit: number): Promise<number | undefined> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${relation} LIMIT ${limit + 1}) t`);
  const n = rows[0]!.n;
  return n <= limit ? n : undefined;
}

/** Every row of a table in key order. */
export async function readAllDocuments(db: SqlExecutor, relation: string, spec: CollectionSpec): Promise<Doc[]> {
  const fields = parseFields(spec);
  const { rows } = await db.query<Record<string, unknown>>(`SELECT ${selectList(fields)} FROM ${relation} ORDER BY ${spec.key.join(', ')}`);
  return rows.map((r) => decode(fields, r));
}
