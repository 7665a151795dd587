import type { EventStore } from '@dob/event-store';
import type { LeaseKeeper } from '@dob/leases';
import { ProjectionRunner, createSqlReadModelStore, type ProjectionReport, type SqlProjectionDefinition } from '@dob/projections';
import { checkSecretFingerprint } from '@dob/runtime';
import type { SqlDatabase, SqlExecutor } from '@dob/sql';
import { DeliveryWorker } from './delivery/delivery-worker';
import type { FailureReason } from './delivery/failure-reason';
import { createHttpsSender, type SendResult, type WebhookSender } from './delivery/https-sender';
import { DEFAULT_RETRY_SCHEDULE_MS } from './delivery/retry-schedule';
import { createFanoutProjection, DELIVERIES_CHANNEL } from './fanout/fanout.projection';
import { SqlFeedLog } from './feed/feed-log';
import type { KnownToken } from './fanout/fanout-lookups';
import { WebhookService } from './management/webhook-service';
import { createSecretBox, type SecretBox } from './secrets/secret-box';
import { assertValidAllowList, type SsrfAllowList } from './ssrf/address-policy';
import { DestinationGuard, type ResolveAll } from './ssrf/destination-guard';
import { SqlDeliveryQueue } from './store/delivery-queue';
import { migrateWebhooks } from './store/migrations';
import { SqlWebhookStore } from './store/webhook-store';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface WebhookComponentsOptions {
  readonly db: SqlDatabase;
  /** 32-byte AES-256-GCM key for secrets at rest. */
  readonly secretKey: Buffer;
  readonly allowList?: SsrfAllowList;
  /** Extra trusted CA PEM (test receivers). */
  readonly ca?: string | readonly string[];
  /** Override DNS (tests). */
  readonly resolveAll?: ResolveAll;
  /** Override the HTTP sender (unit tests). */
  readonly sender?: WebhookSender;
  readonly sendTimeoutMs?: number;
  readonly now?: () => Date;
  /** Told the result of every delivery attempt (test events included), e.g. for metrics. */
  readonly onDeliveryAttempt?: (result: SendResult) => void;
}

export interface WebhookComponents {
  readonly service: WebhookService;
  readonly webhooks: SqlWebhookStore;
  readonly queue: SqlDeliveryQueue;
  readonly secrets: SecretBox;
  readonly guard: DestinationGuard;
  readonly sender: WebhookSender;
  /** Closes pooled outbound connections. */
  close(): void;
}

/**
 * What both the API (management) and the notifier (delivery) use; creates the tables if needed. Refuses (a
 * SecretMismatchError, one line) a secret key other than the one the stored webhook secrets were sealed with.
 */
export async function createWebhookComponents(o: WebhookComponentsOptions): Promise<WebhookComponents> {
  await migrateWebhooks(o.db);
  assertValidAllowList(o.allowList ?? {});
  const secrets = createSecretBox(o.secretKey);
  await checkSecretFingerprint(o.db, {
    name: 'webhook_secret_key',
    variable: 'WEBHOOK_SECRET_KEY',
    secret: o.secretKey,
    opensExistingData: (tx) => opensStoredSecret(tx, secrets),
  });
  const guard = new DestinationGuard(o.allowList ?? {}, o.resolveAll);
  const sender = observed(o.sender ?? createHttpsSender({ guard, ca: o.ca, timeoutMs: o.sendTimeoutMs }), o.onDeliveryAttempt);
  const webhooks = new SqlWebhookStore(o.db);
  const queue = new SqlDeliveryQueue(o.db);
  return {
    service: new WebhookService({ webhooks, queue, secrets, guard, sender, now: o.now }),
    webhooks,
    queue,
    secrets,
    guard,
    sender,
    close: () => sender.close?.(),
  };
}

/** Webhooks stored before the key's fingerprint was recorded: does this key open one of their secrets? */
async function opensStoredSecret(tx: SqlExecutor, secrets: SecretBox): Promise<boolean> {
  const { rows } = await tx.query<{ id: string; secret_sealed: string }>(`SELECT id, secret_sealed FROM webhooks ORDER BY created_at LIMIT 1`);
  if (!rows[0]) return true;
  try {
    secrets.open(rows[0].secret_sealed, rows[0].id);
    return true;
  } catch {
    return false;
  }
}

export interface NotifierOptions extends WebhookComponentsOptions {
  readonly eventStore: EventStore;
  /** Tokens whose symbol/decimals are configured (the read API's configured tokens); others are learned. */
  readonly tokens?: readonly KnownToken[];
  readonly retrySchedule?: readonly number[];
  readonly concurrency?: number;
  readonly leaseMs?: number;
  readonly pollIntervalMs?: number;
  /** Days the agents' event feed keeps; pruned at start and hourly (default 30). */
  readonly feedRetentionDays?: number;
  readonly log?: (line: string) => void;
  /** Several notifiers: the fan-out runs in the one holding its lease (fenced commits); every one delivers. */
  readonly leases?: LeaseKeeper;
}

/** The runtime's ComponentHealth shape, so a root can `health.register('notifier', () => notifier.health())`. */
export interface NotifierHealth {
  readonly status: 'up' | 'down';
  readonly ready: boolean;
  readonly waitingFor?: string;
  readonly details: {
    readonly delivered: number;
    readonly failedAttempts: number;
    readonly failedAttemptsByReason: Readonly<Record<FailureReason, number>>;
    readonly inFlight: number;
    readonly queue: Record<'pending' | 'delivered' | 'failed', number>;
    readonly lastError: string | null;
    /** Several notifiers: whether this one runs the fan-out now (owner) or only delivers (standby). */
    readonly fanout?: 'owner' | 'standby';
  };
}

export interface Notifier {
  readonly components: WebhookComponents;
  start(): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<NotifierHealth>;
  /** Resolves when the fan-out has read every committed event (tests, readiness). */
  waitUntilCaughtUp(timeoutMs?: number): Promise<void>;
  /** The fan-out projection's report (its lag, for metrics and ops). */
  projections(): Promise<ProjectionReport[]>;
}

function observed(sender: WebhookSender, onAttempt: ((result: SendResult) => void) | undefined): WebhookSender {
  if (!onAttempt) return sender;
  return {
    async send(url, headers, body) {
      const result = await sender.send(url, headers, body);
      onAttempt(result);
      return result;
    },
    close: () => sender.close?.(),
  };
}

/**
 * The notifier: the fan-out projection (own checkpoint, exactly-once enqueue) plus the delivery worker. Several
 * notifier processes may run: the projection checkpoint admits one batch writer, SKIP LOCKED shares the queue.
 */
export async function createNotifier(o: NotifierOptions): Promise<Notifier> {
  const components = await createWebhookComponents(o);
  const runner = new ProjectionRunner<SqlProjectionDefinition>(
    o.eventStore,
    createSqlReadModelStore(o.db),
    [createFanoutProjection({ now: o.now, tokens: o.tokens })],
    {
      log: o.log,
      pollIntervalMs: o.pollIntervalMs,
      ...(o.leases ? { leases: o.leases } : {}),
    },
  );
  const worker = new DeliveryWorker({
    queue: components.queue,
    sender: components.sender,
    secrets: components.secrets,
    schedule: o.retrySchedule ?? DEFAULT_RETRY_SCHEDULE_MS,
    concurrency: o.concurrency,
    leaseMs: o.leaseMs,
    sendTimeoutMs: o.sendTimeoutMs,
    pollIntervalMs: o.pollIntervalMs,
    now: o.now,
    log: o.log,
  });
  let unlisten: (() => Promise<void>) | undefined;
  const feed = new SqlFeedLog(o.db);
  const now = o.now ?? (() => new Date());
  const pruneFeed = () =>
    feed
      .prune(new Date(now().getTime() - (o.feedRetentionDays ?? 30) * DAY_MS))
      .catch((e: unknown) => o.log?.(`event feed prune failed: ${(e as Error)?.message ?? String(e)}`));
  let pruning: NodeJS.Timeout | undefined;
  return {
    components,
    async start() {
      unlisten = await o.db.listen(
        DELIVERIES_CHANNEL,
        () => worker.wake(),
        (connected) => connected && worker.wake(), // deliveries notified while LISTEN was down were missed
      );
      await runner.start();
      worker.start();
      await pruneFeed();
      pruning = setInterval(() => void pruneFeed(), HOUR_MS);
      pruning.unref();
    },
    async stop() {
      clearInterval(pruning);
      await runner.stop();
      await worker.stop();
      await unlisten?.();
      components.close();
    },
    async health() {
      const s = worker.stats();
      // A poison event faults the fan-out (nothing after it is enqueued until an operator retries): report down.
      const report = await runner.status();
      const faulted = report.some((p) => p.active?.status === 'faulted');
      const role = report[0]?.role;
      const ready = runner.isCaughtUp() && !faulted;
      return {
        status: faulted ? 'down' : 'up',
        ready,
        ...(ready
          ? {}
          : {
              waitingFor: faulted
                ? 'the fan-out is faulted (npm run ops -- projections retry webhook_fanout)'
                : 'the fan-out is catching up with the event store',
            }),
        details: { ...s, queue: await components.queue.counts(), ...(role ? { fanout: role } : {}) },
      };
    },
    waitUntilCaughtUp: (timeoutMs) => runner.waitUntilCaughtUp(timeoutMs),
    projections: () => runner.status(),
  };
}
