import { isDeepStrictEqual } from 'node:util';
import type { ProjectionDefinition } from '../projection';
import type { ReadModelStore } from '../read-model-store.port';

/**
 * expect(got).toEqual(want) for whole read models, without its cost when they are equal. Jest's `toEqual` walks
 * every value through its custom-tester machinery: about 60 µs per document, a tenth of the CPU of the volume tests
 * that compare tens of thousands of documents three times. `isDeepStrictEqual` is stricter than `toEqual` (it also
 * compares prototypes and undefined properties), so when it holds `toEqual` would have passed; when it does not,
 * `toEqual` decides and prints its diff. The verdict is always `toEqual`'s.
 */
export function expectSameDocuments(label: string, got: unknown, want: unknown): void {
  if (isDeepStrictEqual(got, want)) return;
  expect({ [label]: got }).toEqual({ [label]: want });
}

/** Every collection of every definition: the same documents in `got` as in `want` (and the same count first). */
export async function expectSameReadModels(got: ReadModelStore, want: ReadModelStore, definitions: readonly ProjectionDefinition[]): Promise<void> {
  for (const def of definitions) {
    for (const collection of Object.keys(def.collections)) {
      const [a, b] = await Promise.all([got.documents(def, collection), want.documents(def, collection)]);
      const label = `${def.name}.${collection}`;
      expect({ model: label, rows: a.length }).toEqual({ model: label, rows: b.length });
      expectSameDocuments(label, a, b);
    }
  }
}
