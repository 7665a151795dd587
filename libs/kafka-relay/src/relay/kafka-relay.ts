import { START, positionToString, type EventStore, type GlobalPosition, type ReadAllPage, type Subscription } from '@dob/event-store';
import { DEFAULT_LEASE_TIMING, type LeaseClaim } from '@dob/leases';
import { CheckpointConflictError, type ReadModelStore, type SqlProjectionDefinition } from '@dob/projections';
import { ANALYST_TOPICS, RELAYED_EVENT_TYPES, brokerTopic } from '../analyst-topics';
import { toAnalystMessage, type AnalystMessage } from '../cloud-event';
import type { EventPublisher, TopicSpec } from '../event-publisher.port';
import { RelayCheckpoint, relayCheckpointName, type RelayStatus } from './relay-checkpoint';

export interface KafkaRelayOptions {
  readonly events: EventStore;
  /** Where the checkpoint lives: the projections' checkpoint store. */
  readonly checkpoints: ReadModelStore<SqlProjectionDefinition>;
  readonly publisher: EventPublisher;
  /** Deployment prefix of every topic name (e.g. `staging.`); also names the checkpoint. Default none. */
  readonly topicPrefix?: string;
  /** For topics the relay creates; existing topics keep theirs. Defaults 3 and 1 (one local broker). */
  readonly partitions?: number;
  readonly replicationFactor?: number;
  /** Events read per page = per produce batch. Default 500. */
  readonly batchSize?: number;
  readonly pollIntervalMs?: number;
  /** Backoff between failed attempts (broker or database): full jitter, doubling from baseMs up to capMs. */
  readonly retry?: { readonly baseMs: number; readonly capMs: number };
  readonly log?: (line: string) => void;
  readonly random?: () => number;
  /**
   * Several relays on one database: only the holder of this lease publishes, and its checkpoint moves are fenced
   * with the lease's token; the others stand by. Unset: this relay always runs.
   */
  readonly lease?: LeaseClaim;
  /**
   * How often the lease's keeper renews it (`LeaseKeeper.timing.heartbeatMs`): after a refused checkpoint move the
   * relay waits up to two of these for the keeper to confirm or lose the lease before it follows again. Default
   * DEFAULT_LEASE_TIMING's (1 s).
   */
  readonly leaseHeartbeatMs?: number;
}

export type RelayState = 'starting' | 'standby' | 'catching_up' | 'live' | 'degraded' | 'stopped';

/** The runtime's ComponentHealth shape, so a root can `health.register('kafka_relay', () => relay.health())`. */
export interface RelayHealth {
  readonly status: 'up';
  /** The relay is not on the API's serving path: it never holds readiness back. */
  readonly ready: true;
  /** Publishing (or reading the store) is failing; the relay retries and catches up once it works again. */
  readonly degraded: boolean;
  /** Another relay holds the lease: this one publishes nothing and waits to take over (/health `standby`). */
  readonly standby: boolean;
  readonly details: {
    readonly state: RelayState;
    readonly position: string;
    readonly published: number;
    readonly batches: number;
    readonly failed_attempts: number;
    readonly last_error: string | null;
    readonly failing_since: string | null;
    readonly last_ack_at: string | null;
  };
}

class RelayStopped extends Error {
  override readonly name = 'RelayStopped';
}

/**
 * Relays every analyst-facing domain event from the event store to Kafka, at least once and without gaps:
 * it follows `$all` from its stored checkpoint, publishes each page as one batch (reading the next page meanwhile),
 * and moves the checkpoint only after the broker acknowledged the whole batch. A crash between the two re-publishes that batch (duplicates with the same
 * CloudEvents `id`, which consumers deduplicate on); a broker outage keeps the page in hand and retries it with
 * backoff, so nothing after it is published first. Pages arrive in `$all` order and each stream maps to one key, so
 * per-key order holds — across restarts too, since a restart resumes from the last acknowledged page.
 */
export class KafkaRelay {
  private readonly checkpoint: RelayCheckpoint;
  private readonly topics: readonly TopicSpec[];
  private readonly prefix: string;
  private readonly retry: { baseMs: number; capMs: number };
  private stopped = false;
  private loop?: Promise<void>;
  private subscription?: Subscription;
  private wake?: () => void;
  private position: GlobalPosition = START;
  private topicsReady = false;
  private caughtUp = false;
  /**
   * Reached the head since this follow began: /health's 'live'. Unlike `caughtUp` it stays set while later pages
   * are published (following the tail is what live means), so the state does not flap with every new event.
   */
  private reachedHead = false;
  /** The page handed to the broker and not yet checkpointed (see onPage). */
  private inFlight: Promise<void> = Promise.resolve();
  private pagesHandedOver = 0;
  private markedLive = false;
  private published = 0;
  private batches = 0;
  private failedAttempts = 0;
  private lastError: string | null = null;
  private failingSince: Date | null = null;
  private lastAckAt: Date | null = null;
  /** The broker's last error while it refuses work (topics or a batch); null once it acknowledges again. */
  private brokerError: string | null = null;

  constructor(private readonly o: KafkaRelayOptions) {
    this.prefix = o.topicPrefix ?? '';
    this.checkpoint = new RelayCheckpoint(o.checkpoints, relayCheckpointName(this.prefix));
    this.topics = ANALYST_TOPICS.map((t) => ({
      name: brokerTopic(t, this.prefix),
      partitions: o.partitions ?? 3,
      replicationFactor: o.replicationFactor ?? 1,
    }));
    this.retry = o.retry ?? { baseMs: 200, capMs: 5000 };
  }

  get topicNames(): string[] {
    return this.topics.map((t) => t.name);
  }

  /** Starts following in the background; never waits for the broker (an outage at start is retried like any other). */
  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.subscription?.stop();
    await this.loop;
  }

  /**
   * The lease was taken or lost. Lost: stop following now (a page in hand is refused by the fence) and stand by.
   * Taken: end the standby's wait, so it follows from the stored checkpoint at once.
   */
  leaseChanged(): void {
    if (this.o.lease && !this.o.lease.held()) {
      this.caughtUp = false;
      this.reachedHead = false;
      this.brokerError = null; // a standby does not talk to the broker: it cannot say it is away
      void this.subscription?.stop();
    }
    this.wake?.();
  }

  /** True once the relay has published everything committed at least once and nothing is failing. */
  isCaughtUp(): boolean {
    return this.caughtUp && this.failingSince === null;
  }

  async waitUntilCaughtUp(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isCaughtUp()) {
      if (Date.now() > deadline) throw new Error(`kafka relay not caught up after ${timeoutMs} ms (${this.lastError ?? 'no error'})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /**
   * Why the broker is taken to be away (its last error), or null: set while topic creation or a batch fails, cleared
   * by the next acknowledgment. The relay's `kafka` dependency (/health, the outage log lines, /metrics) reads it,
   * so a PostgreSQL outage, which also degrades the relay, is not reported as Kafka's.
   */
  brokerAway(): string | null {
    return this.brokerError;
  }

  status(now?: Date): Promise<RelayStatus> {
    return this.checkpoint.status(this.o.events, now);
  }

  health(): RelayHealth {
    const state = this.state();
    return {
      status: 'up',
      ready: true,
      degraded: this.failingSince !== null,
      standby: state === 'standby',
      details: {
        state,
        position: positionToString(this.position),
        published: this.published,
        batches: this.batches,
        failed_attempts: this.failedAttempts,
        last_error: this.lastError,
        failing_since: this.failingSince?.toISOString() ?? null,
        last_ack_at: this.lastAckAt?.toISOString() ?? null,
      },
    };
  }

  private state(): RelayState {
    if (this.stopped) return 'stopped';
    if (this.o.lease && !this.o.lease.held()) return 'standby';
    if (this.failingSince) return 'degraded';
    if (!this.loop || !this.topicsReady) return 'starting';
    return this.reachedHead ? 'live' : 'catching_up';
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      if (this.o.lease && !this.o.lease.held()) {
        await this.sleep(this.o.pollIntervalMs ?? 1000);
        continue;
      }
      try {
        if (!this.topicsReady) {
          await this.o.publisher.ensureTopics(this.topics).catch((e: unknown) => {
            this.brokerError = errorText(e);
            throw e;
          });
          this.brokerError = null;
          this.topicsReady = true;
          this.recovered();
        }
        this.position = (await this.checkpoint.load()).position;
        this.log(`following from ${positionToString(this.position)} into ${this.topicNames.join(', ')}`);
        attempt = 0;
        await this.follow();
      } catch (e) {
        if (this.stopped || e instanceof RelayStopped) break;
        if (e instanceof CheckpointConflictError) {
          if (this.o.lease?.held()) {
            // Under a lease a refused move is mostly the fence's: another relay took the lease over, and our keeper
            // learns it only at its next heartbeat. Re-reading at once would republish the page after the checkpoint
            // once per round trip until then, each a duplicate (relay-lease.int-spec counted 108 in one second). So
            // wait for the keeper first: losing the lease ends the wait at once (leaseChanged) and the loop's top
            // stands by; still ours after two heartbeats (a renewal answered within one has come back), the checkpoint
            // really moved under us, so re-read it as without a lease.
            const wait = 2 * (this.o.leaseHeartbeatMs ?? DEFAULT_LEASE_TIMING.heartbeatMs);
            this.log(`checkpoint move refused (${e.message}); waiting up to ${wait} ms for the lease to be confirmed`);
            await this.sleep(wait); // no await since held(): a loss cannot slip in before the wait can be woken
            continue;
          }
          // Another relay moved the checkpoint: re-read it and go on from there (what we sent is a duplicate).
          this.log(`checkpoint moved by someone else (${e.message}); re-reading it`);
          continue;
        }
        this.failed(e);
        await this.sleep(this.backoff(attempt++));
      }
    }
  }

  private async follow(): Promise<void> {
    this.caughtUp = false;
    this.reachedHead = false;
    this.inFlight = Promise.resolve();
    const subscription = this.o.events.subscribeToAll({
      after: this.position,
      maxCount: this.o.batchSize ?? 500,
      types: RELAYED_EVENT_TYPES,
      pollIntervalMs: this.o.pollIntervalMs,
      onPage: (page) => this.onPage(page),
      onCaughtUp: () => this.onCaughtUp(),
    });
    this.subscription = subscription;
    if (this.stopped) await subscription.stop();
    try {
      await subscription.done;
    } catch (e) {
      // Reading failed: let the page already handed over finish first, so a restarted follow never has two pages
      // unacknowledged at once.
      await this.inFlight.catch(() => undefined);
      throw e;
    }
    await this.inFlight; // the last page handed over: acknowledged and checkpointed, or RelayStopped
  }

  /**
   * Pipelined by one page: page N is handed to the broker and this returns, so the subscription reads page N+1
   * meanwhile; page N+1 is only sent once page N was acknowledged and its checkpoint moved (awaited first here).
   * So at most one page is unacknowledged, pages reach the broker in order, and the checkpoint never passes a
   * page the broker has not taken. A failure of page N (e.g. a checkpoint conflict) surfaces here and ends the
   * subscription; the run loop re-reads the checkpoint.
   */
  private async onPage(page: ReadAllPage): Promise<void> {
    this.pagesHandedOver += 1;
    await this.inFlight;
    this.caughtUp = false;
    const messages = page.events.map((e) => toAnalystMessage(e, this.prefix)).filter((m): m is AnalystMessage => m !== null);
    const subscription = this.subscription;
    this.inFlight = this.deliver(page, messages).catch((e: unknown) => {
      // No later page may come to observe this failure (the subscription may be idle at the head): end the
      // subscription now, so follow() returns and rethrows it. Not awaited: stop() waits for onPage, which may be
      // waiting for this very promise.
      void subscription?.stop();
      throw e;
    });
    this.inFlight.catch(() => undefined); // observed by the next onPage or by follow()
  }

  private async deliver(page: ReadAllPage, messages: readonly AnalystMessage[]): Promise<void> {
    if (messages.length > 0) await this.publishUntilAcknowledged(messages);
    const fence = this.o.lease?.fence();
    if (this.o.lease && !fence) throw new CheckpointConflictError(this.checkpoint.slot, 'lease lost: another relay publishes now');
    await this.checkpoint.advance(this.position, page.last, page.events, fence ?? undefined);
    this.position = page.last;
    if (messages.length > 0) {
      this.published += messages.length;
      this.batches += 1;
      this.lastAckAt = new Date();
    }
    this.recovered();
  }

  /** The page stays in hand until the broker takes it: nothing later is sent first. Only stop() ends the wait. */
  private async publishUntilAcknowledged(messages: readonly AnalystMessage[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) throw new RelayStopped('stopped before the broker acknowledged the batch');
      try {
        await this.o.publisher.publish(messages);
        this.brokerError = null;
        return;
      } catch (e) {
        this.brokerError = errorText(e);
        this.failed(e);
        await this.sleep(this.backoff(attempt));
      }
    }
  }

  /** Caught up = the subscription reached the head and the page it handed over last is checkpointed. */
  private onCaughtUp(): void {
    const last = this.inFlight;
    const pages = this.pagesHandedOver;
    last.then(
      () => {
        if (this.pagesHandedOver !== pages) return; // a newer page is on its way
        this.caughtUp = true;
        this.reachedHead = true;
        if (this.markedLive) return;
        this.markedLive = true; // set before the write only so that two caught-ups do not both write it
        this.checkpoint.markLive().catch((e) => {
          // Not written (or not known to be): forget the attempt, so the next time the relay reaches the head it
          // writes it again. Kept set, the row stayed `catching_up` (`kafka status`) until the process restarted.
          this.markedLive = false;
          this.log(`could not mark the checkpoint live: ${String(e)}`);
        });
      },
      () => undefined,
    );
  }

  private failed(e: unknown): void {
    this.failedAttempts += 1;
    const message = errorText(e);
    if (!this.failingSince) {
      this.failingSince = new Date();
      this.log(`degraded: ${message}; retrying with backoff, nothing is skipped`);
    }
    this.lastError = message;
  }

  private recovered(): void {
    if (!this.failingSince) return;
    this.log(`recovered after ${Date.now() - this.failingSince.getTime()} ms`);
    this.failingSince = null;
  }

  /** Full jitter: random(0, min(cap, base·2^attempt)), so several relays do not retry in lockstep. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.capMs, this.retry.baseMs * 2 ** Math.min(attempt, 20));
    return Math.max(1, Math.floor((this.o.random ?? Math.random)() * ceiling));
  }

  /** One sleep at a time (the loop and the publish retry never overlap); stop() cuts it short. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      const finish = (): void => {
        clearTimeout(timer);
        if (this.wake === finish) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wake = finish;
    });
  }

  private log(line: string): void {
    this.o.log?.(`[kafka-relay] ${line}`);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
