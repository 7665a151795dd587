import type { Doc } from './collections';

/**
 * Documents (by id) indexed on the values of some fields — a `find`'s filter — kept up to date as documents move:
 * a batch or a slot cache of hundreds of thousands of documents answers "a seller's active listings" by one map
 * lookup instead of a scan.
 */
export class FieldIndex {
  private readonly byValues = new Map<string, Set<string>>();

  constructor(private readonly fields: readonly string[]) {}

  /** `before` → `after` for document `id` (before undefined: new; after undefined: gone). */
  move(id: string, before: Doc | null | undefined, after: Doc | null | undefined): void {
    // Most writes leave the indexed fields as they were (a balance changes, the pool and holder do not): nothing moves.
    if (before && after && this.sameValues(before, after)) return;
    const from = before ? this.valuesOf(before) : undefined;
    const values = after ? this.valuesOf(after) : undefined;
    if (from === values) return;
    if (from !== undefined) this.byValues.get(from)?.delete(id);
    if (values === undefined) return;
    let ids = this.byValues.get(values);
    if (!ids) this.byValues.set(values, (ids = new Set()));
    ids.add(id);
  }

  private sameValues(a: Doc, b: Doc): boolean {
    for (const f of this.fields) if (a[f] !== b[f]) return false;
    return true;
  }

  ids(where: Doc): Iterable<string> {
    return this.byValues.get(this.valuesOf(where)) ?? [];
  }

  /**
   * The fields' values as one JSON text, a bigint as the array of its digits (so 1n, 1 and "1n" all differ). One
   * JSON.stringify, not a string built piece by piece: a Map key built so is a rope, flattened at every lookup.
   */
  private valuesOf(doc: Doc): string {
    return JSON.stringify(this.fields.map((f) => (typeof doc[f] === 'bigint' ? [String(doc[f])] : (doc[f] ?? null))));
  }
}

/** An index's name: the filter's fields in name order. */
export const indexFields = (where: Doc): string[] => Object.keys(where).sort();

export function matches(doc: Doc, where: Doc): boolean {
  for (const [k, v] of Object.entries(where)) if (doc[k] !== v) return false;
  return true;
}
