import { parseFields, type FieldSpec, type FieldType, type Fields } from '@dob/projections';
import type { RowOf, RowValue } from './document-rows';
import { iso } from './query-context';
import { bool, int, obj, str, type JsonSchema } from './response-schemas';

/**
 * What the API shows of a read model, declared once per response item: each property's OpenAPI schema beside how
 * its value comes from a reader row (and the request's context: token directory, clock). The item type, the
 * mapping and the response schema are derived from it, in the declared property order (the order of the JSON the
 * API sends and of the OpenAPI document).
 */
export interface Shown<R, C, V> {
  readonly schema: JsonSchema;
  value(row: R, ctx: C): V;
}

export type ItemOf<P> = { -readonly [K in keyof P]: P[K] extends Shown<never, never, infer V> ? V : never };

/** A computed property: its schema and its value. */
export const computed = <R, C, V>(schema: JsonSchema, value: (row: R, ctx: C) => V): Shown<R, C, V> => ({ schema, value });

export class ApiView<R, C, P extends Record<string, Shown<R, C, unknown>>> {
  // Split once: every item of every response maps through them.
  private readonly always: readonly [string, Shown<R, C, unknown>][];
  private readonly sometimes: readonly [string, Shown<R, C, unknown>][];

  constructor(
    readonly props: P,
    /**
     * Properties the live API documents as appearing only sometimes (not `required`): an item leaves one out when
     * its value is undefined and sends the present ones after the rest, as the API always has.
     */
    private readonly optional: readonly string[] = [],
  ) {
    const entries = Object.entries(props);
    this.always = entries.filter(([k]) => !optional.includes(k));
    this.sometimes = entries.filter(([k]) => optional.includes(k));
  }

  get schema(): JsonSchema {
    return obj(Object.fromEntries(Object.entries(this.props).map(([k, p]) => [k, p.schema])), this.optional);
  }

  item(row: R, ctx: C): ItemOf<P> {
    const out: Record<string, unknown> = {};
    for (const [k, p] of this.always) out[k] = p.value(row, ctx);
    for (const [k, p] of this.sometimes) {
      const v = p.value(row, ctx);
      if (v !== undefined) out[k] = v;
    }
    return out as ItemOf<P>;
  }

  /** This view as one object-valued property of another. */
  nested(): Shown<R, C, ItemOf<P>> {
    return { schema: this.schema, value: (row, ctx) => this.item(row, ctx) };
  }
}

/**
 * A base view's item followed by more properties (one of the base's replaced in place, as a spread does): a
 * detail that extends its list item. Its schema is `allOf` the two, as the API documents such details.
 */
export class ExtendedView<R, C, P extends Record<string, Shown<R, C, unknown>>, Q extends Record<string, Shown<R, C, unknown>>> {
  private readonly more: ApiView<R, C, Q>;

  constructor(
    private readonly base: ApiView<R, C, P>,
    more: Q,
  ) {
    this.more = new ApiView(more);
  }

  get schema(): JsonSchema {
    return { allOf: [this.base.schema, this.more.schema] };
  }

  item(row: R, ctx: C): Omit<ItemOf<P>, keyof Q> & ItemOf<Q> {
    return { ...this.base.item(row, ctx), ...this.more.item(row, ctx) };
  }
}

/** How a stored field is shown: instants as ISO 8601 text, every other value as the row carries it. */
type ApiValue<S extends FieldSpec> = S extends 'timestamp' ? string : S extends 'timestamp?' ? string | null : RowValue<S>;

const BASE_SCHEMA: Record<FieldType, JsonSchema> = {
  text: str,
  decimal: str,
  amount: str, // base units: exact, never a float
  int,
  int8: int,
  bool,
  timestamp: { type: 'string', format: 'date-time' },
};

/**
 * The properties a read model's declared fields give an API view: `plain(field)` shows a field under any name,
 * its schema from the field's type; `number(field)` shows a decimal (a rate, never money) as a JSON number.
 */
export function shownFields<F extends Fields>(fields: F) {
  const types = new Map(parseFields({ fields, key: [] }).map((f) => [f.name, f]));
  const schemaOf = (name: string, extra: JsonSchema): JsonSchema => {
    const f = types.get(name)!;
    return { ...BASE_SCHEMA[f.type], ...(f.nullable ? { nullable: true } : {}), ...extra };
  };
  return {
    plain<K extends keyof F & string>(name: K, extra: JsonSchema = {}): Shown<RowOf<F>, unknown, ApiValue<F[K]>> {
      const instant = types.get(name)!.type === 'timestamp';
      return computed(schemaOf(name, extra), (row: RowOf<F>) => (instant ? iso(row[name] as Date | null) : row[name]) as ApiValue<F[K]>);
    },
    number<K extends keyof F & string>(name: K): Shown<RowOf<F>, unknown, number | null> {
      return computed({ ...schemaOf(name, {}), type: 'number' }, (row: RowOf<F>) => (row[name] === null ? null : Number(row[name])));
    },
  };
}
