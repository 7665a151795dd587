/**
 * One queue of work per slot in this process: a slot's batches and its switch run one after another (a build's
 * buffered batches and the write-out before its switch, in either store), whatever else runs for other slots.
 */
export class SlotQueues {
  private readonly queues = new Map<string, Promise<unknown>>();

  /** Runs `work` after whatever runs for the slot in this process; a failure of the work before does not stop it. */
  run<T>(id: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(id) ?? Promise.resolve()).then(work, work);
    const settled = run.catch(() => undefined);
    this.queues.set(id, settled);
    void settled.then(() => {
      if (this.queues.get(id) === settled) this.queues.delete(id);
    });
    return run;
  }
}
