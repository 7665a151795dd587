import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The alarms that halt an indexer for good (IngestionAlarmKind's halting half), each a 0/1 series. */
const HALT_REASONS = ['retention_gap', 'concurrent_indexer'] as const;

/** What trackIndexer reads: the indexer's IngestionStatus, structurally (an app running alone may not have one yet). */
export interface IndexerStatusSample {
  readonly ledgersBehind: number | null;
  readonly eventsIngested: number;
  readonly state?: string;
  readonly haltKind?: string | null;
  readonly nextLedger?: number | null;
  readonly latestLedger?: number | null;
  readonly oldestLedger?: number | null;
}

interface SlotSample {
  readonly lag: number;
  readonly status?: string;
  readonly eventsApplied?: number;
}

/** What trackProjections reads: a ProjectionRunner's ProjectionReport, structurally. */
export interface ProjectionSample {
  readonly name: string;
  readonly active: SlotSample | null;
  readonly building?: SlotSample | null;
}

/**
 * The Prometheus series every app exposes at /metrics (prom-client; text exposition format 0.0.4). One registry
 * per process: the all-in-one `npm start` process carries every series, an app running alone carries its own.
 *
 * Counters and histograms are updated where things happen (HTTP hook, request gate, event-store decorator,
 * webhook sender decorator). Gauges that describe another component's state (lags, queue depth) are sampled at
 * scrape time through `sample()`, so nothing polls between scrapes and a scrape always shows the present.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly samplers: (() => Promise<void> | void)[] = [];

  readonly httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route template, method and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly rateLimitRefusals = new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with 429 by the rate limiter, by bucket kind (key = an API key, ip = unauthenticated)',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });
  readonly indexerLedgerLag = new Gauge({
    name: 'indexer_ledger_lag',
    help: 'Ledgers between the chain tip and the first ledger the indexer has not ingested yet',
    labelNames: ['network_id'] as const,
    registers: [this.registry],
  });
  readonly indexerEventsIngested = new Counter({
    name: 'indexer_events_ingested_total',
    help: 'Domain events the indexer appended to the event store',
    labelNames: ['network_id'] as const,
    registers: [this.registry],
  });
  // Alerting needs the indexer's position against the chain, not only the difference: a halted indexer keeps its
  // last lag while the head moves on, and a retention gap is the cursor falling below the RPC's oldest ledger.
  readonly indexerHalted = new Gauge({
    name: 'indexer_halted',
    help: 'Ingestion stopped for good until an operator acts: 1 for the alarm that halted it (retention_gap, concurrent_indexer), else 0',
    labelNames: ['network_id', 'reason'] as const,
    registers: [this.registry],
  });
  readonly indexerChainHead = new Gauge({
    name: 'indexer_chain_head_ledger',
    help: "The chain's latest ledger as the indexer's RPC last reported it",
    labelNames: ['network_id'] as const,
    registers: [this.registry],
  });
  readonly indexerNextLedger = new Gauge({
    name: 'indexer_next_ledger',
    help: 'The first ledger the indexer has not ingested yet (its cursor)',
    labelNames: ['network_id'] as const,
    registers: [this.registry],
  });
  readonly indexerOldestRetained = new Gauge({
    name: 'indexer_oldest_retained_ledger',
    help: "The oldest ledger the indexer's RPC still serves (its retention window's start)",
    labelNames: ['network_id'] as const,
    registers: [this.registry],
  });
  readonly projectionLag = new Gauge({
    name: 'projection_lag_events',
    help: "Events of a projection's types not yet applied to its active read model",
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly projectionFaulted = new Gauge({
    name: 'projection_faulted',
    help: "1 when a projection's active read model stopped on an event it could not apply, else 0",
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly projectionRebuildLag = new Gauge({
    name: 'projection_rebuild_lag_events',
    help: 'Events a blue/green rebuild in progress has still to apply before it can switch (absent when none runs)',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly projectionRebuildApplied = new Gauge({
    name: 'projection_rebuild_events_applied',
    help: 'Events a blue/green rebuild in progress has applied so far (absent when none runs): flat = stuck',
    labelNames: ['projection'] as const,
    registers: [this.registry],
  });
  readonly leaseChanges = new Counter({
    name: 'lease_changes_total',
    help: 'Leases this process acquired or lost, by work (e.g. projection:pools, indexer:9)',
    labelNames: ['work', 'change'] as const,
    registers: [this.registry],
  });
  readonly webhooksInactive = new Gauge({
    name: 'webhooks_inactive',
    help: 'Webhooks not delivered to: deactivated by the notifier after their retries were exhausted, or by their owner',
    registers: [this.registry],
  });
  readonly relayLag = new Gauge({
    name: 'relay_lag_events',
    help: 'Events in the event store a relay (e.g. the Kafka relay) has not published yet',
    labelNames: ['relay'] as const,
    registers: [this.registry],
  });
  readonly webhookQueueDepth = new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent (first attempt or retry)',
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (success = 2xx in time, http_error = other status, network_error = no answer)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly webhookDeliveryLatency = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Webhook delivery attempt duration by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly eventStoreAppendLatency = new Histogram({
    name: 'event_store_append_duration_seconds',
    help: 'Event store append duration by operation (appendToStream, appendMany) and result',
    labelNames: ['operation', 'result'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly dependencyUp = new Gauge({
    name: 'dependency_up',
    help: 'Whether a server this app depends on answered its last probe (1) or not (0), by dependency',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });
  readonly dependencyOutages = new Counter({
    name: 'dependency_outages_total',
    help: 'Times a server this app depends on became unreachable, by dependency',
    labelNames: ['dependency'] as const,
    registers: [this.registry],
  });

  constructor(options: { readonly app: string; readonly processMetrics?: boolean }) {
    this.registry.setDefaultLabels({ app: options.app });
    // Known label values start at 0, so a refusal or a failed delivery shows as a change, not a new series.
    for (const bucket of ['key', 'ip']) this.rateLimitRefusals.inc({ bucket }, 0);
    for (const outcome of ['success', 'http_error', 'network_error']) {
      this.webhookDeliveries.inc({ outcome }, 0);
      this.webhookDeliveryLatency.zero({ outcome });
    }
    // Node's own: CPU, resident memory, event-loop lag, GC, heap.
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** Runs `read` before every scrape; a sampler that throws leaves its gauges at their last value. */
  sample(read: () => Promise<void> | void): void {
    this.samplers.push(read);
  }

  /**
   * How a relay reports its lag (events not yet published): call once at start, with a reader of the current lag.
   * E.g. the Kafka relay: `metrics.trackRelayLag('kafka', async () => (await store.stats()).events - published)`.
   */
  trackRelayLag(relay: string, read: () => Promise<number> | number): void {
    this.sample(async () => this.relayLag.set({ relay }, await read()));
  }

  /**
   * Per-network indexer signals from its status: ledger lag, the ingested-events total (counted by the indexer), and
   * the positions and halt state alerts are written against (ops/prometheus/rules.yml).
   */
  trackIndexer(networkId: number, status: () => IndexerStatusSample): void {
    const labels = { network_id: String(networkId) };
    for (const reason of HALT_REASONS) this.indexerHalted.set({ ...labels, reason }, 0);
    let counted = 0;
    this.sample(() => {
      const s = status();
      if (s.ledgersBehind !== null) this.indexerLedgerLag.set(labels, s.ledgersBehind);
      if (s.eventsIngested > counted) this.indexerEventsIngested.inc(labels, s.eventsIngested - counted);
      counted = s.eventsIngested;
      for (const reason of HALT_REASONS) this.indexerHalted.set({ ...labels, reason }, s.state === 'halted' && s.haltKind === reason ? 1 : 0);
      if (s.latestLedger != null) this.indexerChainHead.set(labels, s.latestLedger);
      if (s.nextLedger != null) this.indexerNextLedger.set(labels, s.nextLedger);
      if (s.oldestLedger != null) this.indexerOldestRetained.set(labels, s.oldestLedger);
    });
  }

  /** Lag and fault per projection, and any blue/green rebuild's progress, from a projection runner's status report. */
  trackProjections(report: () => Promise<readonly ProjectionSample[]>): void {
    this.sample(async () => {
      for (const p of await report()) {
        const labels = { projection: p.name };
        if (p.active) {
          this.projectionLag.set(labels, p.active.lag);
          this.projectionFaulted.set(labels, p.active.status === 'faulted' ? 1 : 0);
        }
        if (p.building) {
          this.projectionRebuildLag.set(labels, p.building.lag);
          this.projectionRebuildApplied.set(labels, p.building.eventsApplied ?? 0);
        } else {
          this.projectionRebuildLag.remove(labels);
          this.projectionRebuildApplied.remove(labels);
        }
      }
    });
  }

  /** Delivery backlog and inactive webhooks, from the webhook components' queue and store (sampled at scrape). */
  trackWebhooks(components: {
    readonly queue: { counts(): Promise<{ readonly pending: number }> };
    readonly webhooks: { countInactive(): Promise<number> };
  }): void {
    this.sample(async () => {
      const [counts, inactive] = await Promise.all([components.queue.counts(), components.webhooks.countInactive()]);
      this.webhookQueueDepth.set(counts.pending);
      this.webhooksInactive.set(inactive);
    });
  }

  /** What a lease keeper calls on each change of hands (`appLeases(..., onChange)`): counted per work. */
  readonly countLeaseChange = (change: 'acquired' | 'lost', work: string): void => {
    this.leaseChanges.inc({ work, change });
  };

  /** Text exposition of every series, sampled now. */
  async render(): Promise<{ readonly contentType: string; readonly body: string }> {
    await Promise.all(
      this.samplers.map(async (read) => {
        try {
          await read();
        } catch {
          /* keep the last value */
        }
      }),
    );
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
