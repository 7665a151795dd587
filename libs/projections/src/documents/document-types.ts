import type { FieldSpec, FieldType } from './collections';

/**
 * The TypeScript side of a collection's field specs, so a read model's document is declared once (its `fields`)
 * and its type and defaults follow: `DocOf<typeof FIELDS>` is what reducers read and write, `newDocument` the
 * document before its first event. Declare the fields `as const satisfies Fields` to keep the literal types.
 */
export type Fields = Readonly<Record<string, FieldSpec>>;

/** How a reducer holds a value of each type (the store encodings never show here, collections.ts). */
type ValueOfType<T extends FieldType> = T extends 'amount' ? bigint : T extends 'bool' ? boolean : T extends 'int' | 'int8' ? number : string;

export type FieldValue<S extends FieldSpec> = S extends `${infer T extends FieldType}?` ? ValueOfType<T> | null : S extends FieldType ? ValueOfType<S> : never;

export type DocOf<F extends Fields> = { -readonly [K in keyof F]: FieldValue<F[K]> };

/** Fields with no natural zero (non-null text, decimals, instants): a new document must be given them. */
type GivenFields<F extends Fields> = { [K in keyof F]: F[K] extends 'text' | 'decimal' | 'timestamp' ? K : never }[keyof F];

const ZERO: Partial<Record<FieldType, bigint | boolean | number>> = { amount: 0n, bool: false, int: 0, int8: 0 };

/** A document before any event: nullable fields null, flags false, counts and amounts zero, the rest as given. */
export function newDocument<F extends Fields>(fields: F, given: Pick<DocOf<F>, GivenFields<F>> & Partial<DocOf<F>>): DocOf<F> {
  const doc: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (name in given) doc[name] = (given as Record<string, unknown>)[name];
    else if (spec.endsWith('?')) doc[name] = null;
    else if (ZERO[spec as FieldType] !== undefined) doc[name] = ZERO[spec as FieldType];
    else throw new Error(`newDocument: field ${name} (${spec}) has no default and was not given`);
  }
  return doc as DocOf<F>;
}

/** Some of a declaration's fields, in its order: the declaration of a row that hands on only those. */
export function pickFields<F extends Fields, K extends keyof F & string>(fields: F, names: readonly K[]): Pick<F, K> {
  return Object.fromEntries(Object.entries(fields).filter(([name]) => (names as readonly string[]).includes(name))) as Pick<F, K>;
}
