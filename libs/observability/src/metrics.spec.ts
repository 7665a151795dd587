import { Writable } from 'node:stream';
import { createLogger, requestLogContext } from './logger';
import { instrumentEventStore, recordDelivery } from './instrument';
import { ServiceMetrics } from './metrics';
import { startMetricsServer } from './metrics-server';

const value = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('ServiceMetrics', () => {
  it('samples component state at scrape time: indexer lag, ingested-events deltas, projection lag, relay lag', async () => {
    const m = new ServiceMetrics({ app: 't', processMetrics: false });
    let status = { ledgersBehind: 7 as number | null, eventsIngested: 10 };
    m.trackIndexer(9, () => status);
    m.trackProjections(async () => [
      { name: 'pools', active: { lag: 3 } },
      { name: 'idle', active: null },
    ]);
    m.trackRelayLag('kafka', () => 42);
    let text = (await m.render()).body;
    expect(value(text, 'indexer_ledger_lag{network_id="9",app="t"}')).toBe(7);
    expect(value(text, 'indexer_events_ingested_total{network_id="9",app="t"}')).toBe(10);
    expect(value(text, 'projection_lag_events{projection="pools",app="t"}')).toBe(3);
    expect(text).not.toContain('projection="idle"');
    expect(value(text, 'relay_lag_events{relay="kafka",app="t"}')).toBe(42);
    status = { ledgersBehind: 0, eventsIngested: 25 };
    text = (await m.render()).body;
    expect(value(text, 'indexer_events_ingested_total{network_id="9",app="t"}')).toBe(25);
    expect(value(text, 'indexer_ledger_lag{network_id="9",app="t"}')).toBe(0);
  });

  it('exports the indexer position and halt state, projection faults and rebuild progress, leases and inactive webhooks', async () => {
    const m = new ServiceMetrics({ app: 't', processMetrics: false });
    let status = { ledgersBehind: 0, eventsIngested: 0, state: 'live', haltKind: null as string | null, nextLedger: 101, latestLedger: 100, oldestLedger: 40 };
    m.trackIndexer(9, () => status);
    let building: { lag: number; eventsApplied: number } | null = { lag: 50, eventsApplied: 10 };
    m.trackProjections(async () => [{ name: 'pools', active: { lag: 0, status: 'faulted' }, building }]);
    m.trackWebhooks({ queue: { counts: async () => ({ pending: 4 }) }, webhooks: { countInactive: async () => 2 } });
    m.countLeaseChange('acquired', 'projection:pools');
    let text = (await m.render()).body;
    expect(value(text, 'indexer_halted{network_id="9",reason="retention_gap",app="t"}')).toBe(0);
    expect(value(text, 'indexer_chain_head_ledger{network_id="9",app="t"}')).toBe(100);
    expect(value(text, 'indexer_next_ledger{network_id="9",app="t"}')).toBe(101);
    expect(value(text, 'indexer_oldest_retained_ledger{network_id="9",app="t"}')).toBe(40);
    expect(value(text, 'projection_faulted{projection="pools",app="t"}')).toBe(1);
    expect(value(text, 'projection_rebuild_lag_events{projection="pools",app="t"}')).toBe(50);
    expect(value(text, 'projection_rebuild_events_applied{projection="pools",app="t"}')).toBe(10);
    expect(value(text, 'webhook_queue_depth{app="t"}')).toBe(4);
    expect(value(text, 'webhooks_inactive{app="t"}')).toBe(2);
    expect(value(text, 'lease_changes_total{work="projection:pools",change="acquired",app="t"}')).toBe(1);
    status = { ...status, state: 'halted', haltKind: 'retention_gap', oldestLedger: 120, latestLedger: 140 };
    building = null;
    text = (await m.render()).body;
    expect(value(text, 'indexer_halted{network_id="9",reason="retention_gap",app="t"}')).toBe(1);
    expect(value(text, 'indexer_halted{network_id="9",reason="concurrent_indexer",app="t"}')).toBe(0);
    expect(value(text, 'indexer_oldest_retained_ledger{network_id="9",app="t"}')).toBe(120);
    expect(text).not.toContain('projection_rebuild_lag_events{');
  });

  it('keeps a failing sampler from breaking the scrape', async () => {
    const m = new ServiceMetrics({ app: 't', processMetrics: false });
    m.trackRelayLag('kafka', () => 5);
    await m.render();
    m.sample(() => {
      throw new Error('db down');
    });
    expect(value((await m.render()).body, 'relay_lag_events{relay="kafka",app="t"}')).toBe(5);
  });

  it('starts known label values at zero and records deliveries by outcome', async () => {
    const m = new ServiceMetrics({ app: 't', processMetrics: false });
    let text = (await m.render()).body;
    expect(value(text, 'rate_limit_refusals_total{bucket="key",app="t"}')).toBe(0);
    expect(value(text, 'webhook_deliveries_total{outcome="http_error",app="t"}')).toBe(0);
    recordDelivery(m, { ok: true, responseCode: 200, durationMs: 30 });
    recordDelivery(m, { ok: false, responseCode: 500, durationMs: 20 });
    recordDelivery(m, { ok: false, responseCode: null, durationMs: 10_000 });
    text = (await m.render()).body;
    expect(value(text, 'webhook_deliveries_total{outcome="success",app="t"}')).toBe(1);
    expect(value(text, 'webhook_deliveries_total{outcome="http_error",app="t"}')).toBe(1);
    expect(value(text, 'webhook_delivery_duration_seconds_count{app="t",outcome="network_error"}')).toBe(1);
  });

  it('times appends of an instrumented event store and passes everything else through', async () => {
    const m = new ServiceMetrics({ app: 't', processMetrics: false });
    class Store {
      #appended = 0;
      async appendToStream() {
        return ++this.#appended;
      }
      async appendMany() {
        throw new Error('conflict');
      }
      count() {
        return this.#appended;
      }
    }
    const store = instrumentEventStore(new Store(), m);
    expect(await store.appendToStream()).toBe(1);
    await expect(store.appendMany()).rejects.toThrow('conflict');
    expect(store.count()).toBe(1);
    const text = (await m.render()).body;
    expect(value(text, 'event_store_append_duration_seconds_count{app="t",operation="appendToStream",result="ok"}')).toBe(1);
    expect(value(text, 'event_store_append_duration_seconds_count{app="t",operation="appendMany",result="error"}')).toBe(1);
  });

  it('serves /metrics and /health/live from its own server', async () => {
    const m = new ServiceMetrics({ app: 'alone' });
    const server = await startMetricsServer(m, 0, '127.0.0.1');
    try {
      const metrics = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      expect(metrics.headers.get('content-type')).toContain('text/plain');
      expect(await metrics.text()).toContain('process_resident_memory_bytes{app="alone"}');
      const live = await fetch(`http://127.0.0.1:${server.port}/health/live`);
      expect(await live.json()).toEqual({ status: 'alive', uptime_seconds: expect.any(Number) });
      expect((await fetch(`http://127.0.0.1:${server.port}/nope`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('createLogger', () => {
  it('writes one JSON object per line with the level name, and the request logger inside a request context', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write: (chunk, _e, done) => {
        lines.push(...String(chunk).trim().split('\n'));
        done();
      },
    });
    const log = createLogger({ app: 'x', level: 'log', destination });
    log.debug('hidden');
    log.info({ a: 1 }, 'shown');
    requestLogContext.run(log.child({ reqId: 'r-1' }), () => requestLogContext.getStore()!.warn('inside'));
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed).toEqual([
      expect.objectContaining({ level: 'info', app: 'x', a: 1, msg: 'shown', time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
      expect.objectContaining({ level: 'warn', reqId: 'r-1', msg: 'inside' }),
    ]);
    expect(lines.join('')).not.toMatch(/\u001b\[/);
    expect(() => createLogger({ level: 'loud' })).toThrow('unknown log level');
  });
});
