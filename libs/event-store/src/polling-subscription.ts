import { START, type GlobalPosition, type ReadAllOptions, type ReadAllPage, type SubscribeOptions, type Subscription } from './event-store.port';
import { isAfter } from './position';

/** What a polling subscription needs from a store: gap-safe pages and, optionally, an early wake-up signal. */
export interface PollingSource {
  readAll(options: ReadAllOptions): Promise<ReadAllPage>;
  /** Calls wake when new events may be readable (e.g. LISTEN/NOTIFY); returns an unsubscribe function. */
  listenForAppends?(wake: () => void): Promise<() => Promise<void>>;
}

export interface PollingDefaults {
  readonly pollIntervalMs: number;
  readonly pageSize: number;
}

/**
 * Reads $all page after page, handing each to onPage and reading the next only once it resolved. When caught up
 * it sleeps until a wake-up or the poll interval, whichever comes first: the wake-up is only a hint (a NOTIFY can
 * arrive while a still-open older transaction keeps the new events unreadable), polling is what guarantees
 * progress. A page is delivered when it has events or moves `last` forward (a type-filtered read that skipped
 * events), so checkpoints advance too.
 */
export function startPollingSubscription(source: PollingSource, options: SubscribeOptions, defaults: PollingDefaults): Subscription {
  const pollIntervalMs = options.pollIntervalMs ?? defaults.pollIntervalMs;
  const maxCount = options.maxCount ?? defaults.pageSize;
  let stopped = false;
  let wakePending = false;
  let wakeUp: (() => void) | undefined;

  const wake = (): void => {
    wakePending = true;
    wakeUp?.();
  };

  const sleep = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (wakePending || stopped) return resolve();
      const timer = setTimeout(done, pollIntervalMs);
      function done(): void {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  const run = async (): Promise<void> => {
    let unlisten: (() => Promise<void>) | undefined;
    try {
      // Listen before the first read, so an append committed between that read and the sleep still wakes us.
      unlisten = await source.listenForAppends?.(wake).catch(() => undefined);
      let after: GlobalPosition = options.after ?? START;
      let caughtUp = false;
      while (!stopped) {
        wakePending = false;
        const page = await source.readAll({ after, maxCount, types: options.types });
        if (stopped) break;
        if (page.events.length > 0 || isAfter(page.last, after)) {
          await options.onPage(page);
          after = page.last;
          caughtUp = false;
        }
        if (page.hasMore) continue;
        if (!caughtUp) {
          caughtUp = true;
          options.onCaughtUp?.(after);
        }
        await sleep();
      }
    } finally {
      stopped = true;
      await unlisten?.().catch(() => undefined);
    }
  };

  const done = run();
  // The caller may never await `done`; a failure must still not surface as an unhandled rejection.
  done.catch(() => undefined);

  return {
    done,
    async stop(): Promise<void> {
      stopped = true;
      wakeUp?.();
      await done.catch(() => undefined);
    },
  };
}

/** The subscriptions a store has open, so close() can stop them; each leaves the set when it ends. */
export class OpenSubscriptions {
  private readonly open = new Set<Subscription>();

  add(sub: Subscription): Subscription {
    this.open.add(sub);
    void sub.done.catch(() => undefined).finally(() => this.open.delete(sub));
    return sub;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.stop()));
  }
}
