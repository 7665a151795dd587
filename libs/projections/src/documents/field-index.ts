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
    const from = before ? this.valuesOf(before) : undefined;
    const values = after ? this.valuesOf(after) : undefined;
    // Most writes leave the indexed fields as they were (a balance changes, the pool and holder do not).
    if (from === values) return;
    if (from !== undefined) this.byValues.get(from)?.delete(id);
    if (values === undefined) return;
    let ids = this.byValues.get(values);
    if (!ids) this.byValues.set(values, (ids = new Set()));
    ids.add(id);
  }

  ids(where: Doc): Iterable<string> {
    return this.byValues.get(this.valuesOf(where)) ?? [];
  }

  private valuesOf(doc: Doc): string {
    return JSON.stringify(this.fields.map((f) => (typeof doc[f] === 'bigint' ? `${String(doc[f])}n` : (doc[f] ?? null))));
  }
}

/** An index's name: the filter's fields in name order. */
export const indexFields = (where: Doc): string[] => Object.keys(where).sort();

export function matches(doc: Doc, where: Doc): boolean {
  for (const [k, v] of Object.entries(where)) if (doc[k] !== v) return false;
  return true;
}
