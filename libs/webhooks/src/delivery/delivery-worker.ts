import type { SecretBox } from '../secrets/secret-box';
import { deliveryHeaders } from '../signing/delivery-signatures';
import type { ClaimedDelivery, SqlDeliveryQueue } from '../store/delivery-queue';
import type { WebhookSender } from './https-sender';
import { DEFAULT_RETRY_SCHEDULE_MS } from './retry-schedule';

export interface DeliveryWorkerOptions {
  readonly queue: SqlDeliveryQueue;
  readonly sender: WebhookSender;
  readonly secrets: SecretBox;
  readonly schedule?: readonly number[];
  /** Deliveries in flight at once. Default 16. */
  readonly concurrency?: number;
  /** How long a claimed row stays leased; must exceed the send timeout. Default 30 s. */
  readonly leaseMs?: number;
  /** Longest idle sleep (a wake-up also comes from `wake()`). Default 1 s. */
  readonly pollIntervalMs?: number;
  readonly now?: () => Date;
  readonly log?: (line: string) => void;
}

export interface DeliveryWorkerStats {
  readonly delivered: number;
  readonly failedAttempts: number;
  readonly inFlight: number;
  readonly lastError: string | null;
}

/**
 * Claims due deliveries, sends them (up to `concurrency` at once), records each attempt and its next schedule.
 * Sleeps until the earliest due row, a `wake()` (the fan-out enqueued something) or the poll interval.
 */
export class DeliveryWorker {
  private running = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  private wakeUp?: () => void;
  private delivered = 0;
  private failedAttempts = 0;
  private lastError: string | null = null;
  private readonly schedule: readonly number[];
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.schedule = options.schedule ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.concurrency = options.concurrency ?? 16;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.now = options.now ?? (() => new Date());
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    await Promise.all([...this.inFlight]);
  }

  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  stats(): DeliveryWorkerStats {
    return { delivered: this.delivered, failedAttempts: this.failedAttempts, inFlight: this.inFlight.size, lastError: this.lastError };
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) {
        await this.sleep(this.pollIntervalMs); // a finishing delivery wakes us
        continue;
      }
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await this.options.queue.claimDue(this.now(), free, this.leaseMs);
      } catch (e) {
        this.lastError = `claim: ${(e as Error).message}`;
        this.options.log?.(this.lastError);
      }
      for (const c of claimed) this.track(this.attempt(c));
      if (!this.running) break;
      if (claimed.length === free) continue; // maybe more are due right now
      // Nothing more due: sleep until the earliest pending row falls due (≥ 10 ms, so rows another worker holds
      // locked for an instant do not make this loop spin), a wake-up, or the poll interval.
      await this.sleep(Math.max(10, await this.idleDelay()));
    }
  }

  private track(p: Promise<void>): void {
    const tracked = p.finally(() => {
      this.inFlight.delete(tracked);
      this.wake(); // a lane is free
    });
    this.inFlight.add(tracked);
  }

  private async idleDelay(): Promise<number> {
    try {
      const next = await this.options.queue.nextDueAt();
      if (!next) return this.pollIntervalMs;
      return Math.max(0, Math.min(this.pollIntervalMs, next.getTime() - this.now().getTime()));
    } catch {
      return this.pollIntervalMs;
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private async attempt(c: ClaimedDelivery): Promise<void> {
    try {
      const at = this.now();
      const secret = this.options.secrets.open(c.secretSealed, c.webhookId);
      const headers = deliveryHeaders({
        secret,
        event: c.eventType,
        deliveryId: c.id,
        body: c.body,
        timestampSeconds: Math.floor(at.getTime() / 1000),
      });
      const result = await this.options.sender.send(c.url, headers, c.body);
      const outcome = { at: this.now(), responseCode: result.responseCode, durationMs: result.durationMs, error: result.error };
      if (result.ok) {
        if (await this.options.queue.recordSuccess(c, outcome)) this.delivered++;
      } else {
        this.failedAttempts++;
        await this.options.queue.recordFailure(c, outcome, this.schedule);
      }
    } catch (e) {
      // Recording failed (database down): the lease expires and the row is retried — at-least-once.
      this.lastError = `deliver ${c.id}: ${(e as Error).message}`;
      this.options.log?.(this.lastError);
    }
  }
}
