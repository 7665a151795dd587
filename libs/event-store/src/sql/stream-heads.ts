/**
 * The last revision this process saw each stream reach, learned from its own committed appends, so es_append
 * (version 4) need not look heads up for streams it keeps writing. A head here is never ahead of the stored one:
 * revisions are gapless, es_events is append-only, and a head is recorded only from an append's committed result,
 * never lowered (two appends finishing out of order keep the higher). One that is behind — another process appended
 * since — costs a retry inside es_append, not a wrong revision. Bounded: past `capacity` streams the least recently
 * used are forgotten (they are then looked up again).
 */
export class StreamHeads {
  private readonly heads = new Map<string, number>();

  constructor(private readonly capacity = 100_000) {}

  get(streamId: string): number | undefined {
    return this.heads.get(streamId);
  }

  /** Records a committed head; a lower one than recorded is ignored. Refreshes the stream's recency. */
  record(streamId: string, head: number): void {
    const known = this.heads.get(streamId);
    if (known !== undefined) this.heads.delete(streamId);
    this.heads.set(streamId, known === undefined ? head : Math.max(known, head));
    if (this.heads.size > this.capacity) this.heads.delete(this.heads.keys().next().value!);
  }

  /** After a failed append nothing is known for sure about its streams: look them up next time. */
  forget(streamId: string): void {
    this.heads.delete(streamId);
  }

  get size(): number {
    return this.heads.size;
  }
}
