import { parseFields, type Fields } from '@dob/projections';

/**
 * The SELECT list giving a document's fields as its row (queries/document-rows.ts): exact numbers as text, int8
 * (safe integers by declaration, never money) as a JS number — the driver would give it as text.
 */
export function documentColumns(alias: string, fields: Fields): string {
  return parseFields({ fields, key: [] })
    .map(({ name, type }) => {
      if (type === 'amount' || type === 'decimal') return `${alias}.${name}::text AS ${name}`;
      if (type === 'int8') return `${alias}.${name}::float8 AS ${name}`;
      return `${alias}.${name}`;
    })
    .join(', ');
}
