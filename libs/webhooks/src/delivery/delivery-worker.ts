import { BoundedMemo } from '@dob/runtime';
import type { SecretBox } from '../secrets/secret-box';
import { deliveryHeaders } from '../signing/delivery-signatures';
import type { AttemptOutcome, ClaimedDelivery, SqlDeliveryQueue } from '../store/delivery-queue';
import { describeFailure, FAILURE_REASONS, reasonOfError, type FailureReason } from './failure-reason';
import type { SendResult, WebhookSender } from './https-sender';
import { DEFAULT_RETRY_SCHEDULE_MS } from './retry-schedule';

export interface DeliveryWorkerOptions {
  readonly queue: SqlDeliveryQueue;
  readonly sender: WebhookSender;
  readonly secrets: SecretBox;
  readonly schedule?: readonly number[];
  /** Deliveries in flight at once. Default 16. */
  readonly concurrency?: number;
  /** How long a claimed row stays leased; must exceed the send timeout and its write (RECORD_MARGIN_MS). Default 30 s. */
  readonly leaseMs?: number;
  /** The sender's deadline for one delivery (default 10 s, the HTTPS sender's). */
  readonly sendTimeoutMs?: number;
  /** Longest idle sleep (a wake-up also comes from `wake()`). Default 1 s. */
  readonly pollIntervalMs?: number;
  readonly now?: () => Date;
  readonly log?: (line: string) => void;
}

export interface DeliveryWorkerStats {
  readonly delivered: number;
  readonly failedAttempts: number;
  /** Failed attempts by why they failed (decrypt, dns, ssrf, tls, connect, timeout, http, redirect, other). */
  readonly failedAttemptsByReason: Readonly<Record<FailureReason, number>>;
  readonly inFlight: number;
  readonly lastError: string | null;
}

/**
 * Claims due deliveries, sends them (up to `concurrency` at once), records each attempt and its next schedule.
 * Claims run ahead of the lanes: up to one lane's worth more than are sending wait leased in `ready`, so a lane that
 * frees takes the next delivery at once instead of waiting for a claim round trip (issue 33: the claim was the
 * pace-setter). Sleeps until the earliest due row, a `wake()` (the fan-out enqueued something) or the poll interval.
 */
/** Time allowed, past the send's deadline, for writing its outcome while the row is still leased. */
export const RECORD_MARGIN_MS = 1_000;

export class DeliveryWorker {
  private running = false;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();
  /** Claimed (leased) and waiting for a free lane. */
  private readonly ready: ClaimedDelivery[] = [];
  /** Successes sent but not yet written (their rows stay leased until then). */
  private readonly recording = new Set<Promise<void>>();
  private wakeUp?: () => void;
  private delivered = 0;
  private failedAttempts = 0;
  private readonly failedByReason = Object.fromEntries(FAILURE_REASONS.map((r) => [r, 0])) as Record<FailureReason, number>;
  private lastError: string | null = null;
  private readonly schedule: readonly number[];
  private readonly concurrency: number;
  private readonly leaseMs: number;
  /** A claimed delivery starts only while its lease has more than this left (the send's deadline and its write). */
  private readonly leaseNeededMs: number;
  private readonly pollIntervalMs: number;
  private readonly now: () => Date;
  /**
   * Opened secrets by webhook and sealed text: opening one (an AES-GCM decipher) on every delivery was 5 % of the
   * notifier's CPU in a burst, for the same few secrets. A sealed text opens to one plaintext (it is authenticated
   * with the webhook id), and a rotated secret is a new sealed text, so an entry is never stale; bounded, emptied when
   * full. The plaintext is what each delivery held in memory anyway, in a process that holds the key.
   */
  private readonly openedSecrets = new BoundedMemo<string>(1024);

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.schedule = options.schedule ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.concurrency = options.concurrency ?? 16;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.leaseNeededMs = (options.sendTimeoutMs ?? 10_000) + RECORD_MARGIN_MS;
    if (this.leaseMs <= this.leaseNeededMs) {
      throw new RangeError(
        `the delivery lease (${this.leaseMs} ms, WEBHOOK_LEASE_MS) must exceed the send timeout plus ${RECORD_MARGIN_MS} ms for its write ` +
          `(${this.leaseNeededMs} ms): a lease that lapses during a send lets another worker send the delivery again`,
      );
    }
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
    // Claimed but never started: give their leases back, so another worker (or this one restarted) sends them now
    // instead of after the lease.
    const unsent = this.ready.splice(0);
    await this.options.queue.release(unsent).catch((e: unknown) => this.options.log?.(`release: ${(e as Error).message}`));
    await Promise.all([...this.inFlight]);
    await Promise.all([...this.recording]);
  }

  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  stats(): DeliveryWorkerStats {
    return {
      delivered: this.delivered,
      failedAttempts: this.failedAttempts,
      failedAttemptsByReason: { ...this.failedByReason },
      inFlight: this.inFlight.size,
      lastError: this.lastError,
    };
  }

  private async run(): Promise<void> {
    while (this.running) {
      const room = 2 * this.concurrency - this.inFlight.size - this.ready.length;
      // Claim in batches: wait until a quarter of a lane set has room, so the claim query's cost is shared by
      // several deliveries instead of paid once per finished one.
      if (room < Math.max(1, Math.floor(this.concurrency / 4))) {
        await this.sleep(this.pollIntervalMs); // a finishing delivery wakes us
        continue;
      }
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await this.options.queue.claimDue(this.now(), room, this.leaseMs);
      } catch (e) {
        this.lastError = `claim: ${(e as Error).message}`;
        this.options.log?.(this.lastError);
      }
      this.ready.push(...claimed);
      this.startReady();
      if (!this.running) break;
      if (claimed.length === room) continue; // maybe more are due right now
      // Nothing more due: sleep until the earliest pending row falls due (≥ 10 ms, so rows another worker holds
      // locked for an instant do not make this loop spin), a wake-up, or the poll interval.
      await this.sleep(Math.max(10, await this.idleDelay()));
    }
  }

  /** Fills free lanes from the claimed deliveries (not after stop: those are released). */
  private startReady(): void {
    const lapsing: ClaimedDelivery[] = [];
    while (this.running && this.inFlight.size < this.concurrency && this.ready.length > 0) {
      const next = this.ready.shift()!;
      // One that waited for a lane (lanes held by slow receivers, or by a slow database writing successes) until its
      // lease no longer covers a send and its write is given back, not sent: its lease could lapse mid-send, another
      // worker claim it and send it too — a duplicate without any crash, outside the documented bound.
      if (next.leaseUntil.getTime() - this.now().getTime() <= this.leaseNeededMs) lapsing.push(next);
      else this.track(this.attempt(next));
    }
    if (lapsing.length > 0) {
      void this.options.queue.release(lapsing).then(
        () => this.wake(), // due again at once: claimed anew, with a fresh lease
        (e: unknown) => this.options.log?.(`release: ${(e as Error).message}`), // the leases lapse instead
      );
    }
  }

  private track(p: Promise<void>): void {
    held(this.inFlight, p, () => {
      this.startReady(); // a lane is free: the next claimed delivery takes it
      this.wake(); // and the loop may claim more
    });
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

  private successes: { claim: ClaimedDelivery; outcome: AttemptOutcome; done: (ok: boolean) => void; fail: (e: unknown) => void }[] = [];
  private flushing = false;

  /** Coalesces successes that finish while a write is in progress into the next single transaction. */
  private recordSuccess(claim: ClaimedDelivery, outcome: AttemptOutcome): Promise<boolean> {
    return new Promise((done, fail) => {
      this.successes.push({ claim, outcome, done, fail });
      void this.flushSuccesses();
    });
  }

  private async flushSuccesses(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.successes.length > 0) {
        const group = this.successes.splice(0, 500);
        try {
          const recorded = await this.options.queue.recordSuccesses(group);
          for (const g of group) g.done(recorded.has(g.claim.id));
        } catch (e) {
          for (const g of group) g.fail(e);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async attempt(c: ClaimedDelivery): Promise<void> {
    try {
      const result = await this.send(c);
      const outcome = { at: this.now(), responseCode: result.responseCode, durationMs: result.durationMs, error: result.error };
      if (result.ok) {
        // The lane is free once the receiver answered: the success is written with the next group commit while the
        // lane sends the next delivery (the row stays leased until then, so a crash before the write redelivers it —
        // at-least-once as before). Bounded: past `concurrency` successes waiting for the database, lanes wait for
        // theirs, so the database sets the pace.
        const recorded = this.recordSuccess(c, outcome).then(
          (ok) => {
            if (ok) this.delivered++;
          },
          (e: unknown) => {
            this.lastError = `record ${c.id}: ${(e as Error).message}`;
            this.options.log?.(this.lastError);
          },
        );
        const written = held(this.recording, recorded);
        if (this.recording.size > this.concurrency) await written;
      } else {
        // Every failure — before sending (the secret does not open, DNS, SSRF refusal at connect, TLS, timeout) or
        // after (non-2xx) — is an attempt: logged, counted, and on the retry schedule to deactivation.
        const reason = result.reason ?? (result.responseCode === null ? 'other' : 'http');
        this.failedAttempts++;
        this.failedByReason[reason]++;
        this.lastError = `deliver ${c.id}: ${result.error}`;
        await this.options.queue.recordFailure(c, outcome, this.schedule);
      }
    } catch (e) {
      // Recording failed (database down): the lease expires and the row is retried — at-least-once.
      this.lastError = `record ${c.id}: ${(e as Error).message}`;
      this.options.log?.(this.lastError);
    }
  }

  /** Opens the secret, signs and sends; any failure on the way is a failed SendResult, never a throw. */
  private async send(c: ClaimedDelivery): Promise<SendResult> {
    const started = performance.now();
    const failed = (reason: FailureReason, e: unknown): SendResult => ({
      ok: false,
      responseCode: null,
      durationMs: Math.round(performance.now() - started),
      reason,
      error: describeFailure(reason, (e as Error)?.message ?? String(e)),
    });
    let secret: string;
    try {
      secret = this.openedSecrets.get(`${c.webhookId}\n${c.secretSealed}`, () => this.options.secrets.open(c.secretSealed, c.webhookId));
    } catch (e) {
      return failed('decrypt', new Error(`the webhook secret does not open with this WEBHOOK_SECRET_KEY (${(e as Error).message})`));
    }
    try {
      const headers = deliveryHeaders({
        secret,
        event: c.eventType,
        deliveryId: c.id,
        body: c.body,
        timestampSeconds: Math.floor(this.now().getTime() / 1000),
      });
      return await this.options.sender.send(c.url, headers, c.body);
    } catch (e) {
      return failed(reasonOfError(e), e);
    }
  }
}

/** Keeps `p` in `set` until it settles (then runs `after`): what stop() waits for. */
function held(set: Set<Promise<void>>, p: Promise<void>, after?: () => void): Promise<void> {
  const tracked = p.finally(() => {
    set.delete(tracked);
    after?.();
  });
  set.add(tracked);
  return tracked;
}
