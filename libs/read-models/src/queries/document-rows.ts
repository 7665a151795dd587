import type { FieldSpec, FieldType, Fields } from '@dob/projections';

/**
 * How the readers hand a read-model document's fields to the query services, whatever the store: amounts and
 * decimals as decimal strings (exact, never a float), instants as Dates, the rest as stored. A reader's row type is
 * `RowOf<typeof FIELDS>` plus what it joins, so a field declared in a projection reaches the services by itself.
 */
type RowValueOfType<T extends FieldType> = T extends 'amount' | 'decimal' | 'text'
  ? string
  : T extends 'timestamp'
    ? Date
    : T extends 'bool'
      ? boolean
      : number;

export type RowValue<S extends FieldSpec> = S extends `${infer T extends FieldType}?`
  ? RowValueOfType<T> | null
  : S extends FieldType
    ? RowValueOfType<S>
    : never;

export type RowOf<F extends Fields> = { -readonly [K in keyof F]: RowValue<F[K]> };
