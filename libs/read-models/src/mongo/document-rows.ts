import { parseFields, type DocOf, type Fields, type ParsedField } from '@dob/projections';
import type { RowOf } from '../queries/document-rows';

/** Parsed once per declaration: every row of every read maps through it. */
const parsed = new WeakMap<Fields, readonly ParsedField[]>();
function fieldsOf(fields: Fields): readonly ParsedField[] {
  let list = parsed.get(fields);
  if (!list) parsed.set(fields, (list = parseFields({ fields, key: [] })));
  return list;
}

/** A decoded document as its row (queries/document-rows.ts): amounts as decimal strings, instants as Dates. */
export function documentRow<F extends Fields>(fields: F, doc: DocOf<F>): RowOf<F> {
  const row: Record<string, unknown> = {};
  for (const { name, type } of fieldsOf(fields)) {
    const v = (doc as Record<string, unknown>)[name];
    if (v === null || v === undefined) row[name] = null;
    else if (type === 'amount') row[name] = (v as bigint).toString();
    else if (type === 'timestamp') row[name] = new Date(v as string);
    else row[name] = v;
  }
  return row as RowOf<F>;
}
