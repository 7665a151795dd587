/**
 * Values computed once per key and kept, at most `max` of them: when full, everything is dropped and the next keys
 * fill it again (cheaper than LRU bookkeeping, and right for hot paths that see the same few keys over and over). A
 * compute that throws keeps nothing, so a failure is computed — and thrown — again next time. Only for values that
 * depend on the key alone.
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(private readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new Error(`BoundedMemo needs a positive size, got ${max}`);
  }

  get size(): number {
    return this.values.size;
  }

  get(key: string, compute: () => V): V {
    if (this.values.has(key)) return this.values.get(key)!;
    const value = compute();
    if (this.values.size >= this.max) this.values.clear();
    this.values.set(key, value);
    return value;
  }
}
