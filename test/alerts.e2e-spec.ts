import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { DASHBOARD_FILE } from '../scripts/generate-dashboard';
import { freePort, startApp, startProcess, until, type AppProcess } from './app-processes';
import { PROMETHEUS_DIR, prometheusTool } from './prometheus-tools';
import { exportedSeries, seriesOfQuery } from './promql-series';

/**
 * The alert rules and the dashboard against the real thing: `npm start` whose devnet keeps only 20 ledgers (fewer
 * than its 208-ledger seeded history, so the indexer, starting at ledger 1, halts on a retention gap at once — the
 * halt the indexer really makes, docs/indexer.md "Faults"), scraped by a real Prometheus (Debian's package) running
 * ops/prometheus/prometheus.yml with ops/prometheus/rules.yml as committed — only the target and the intervals are
 * changed. The alert must fire through that chain: series exported → scraped → rule evaluated.
 */
jest.setTimeout(240_000);

interface PromAlert {
  readonly labels: Record<string, string>;
  readonly state: 'pending' | 'firing';
}

describe('alerts and dashboard against a started system', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alerts-e2e-'));
  const running: AppProcess[] = [];
  let api = '';
  let prometheus = '';
  // /metrics is served on the API port only to this bearer token (METRICS_TOKEN); Prometheus reads it from a file.
  const metricsToken = 'alerts-e2e-metrics-token-0123456789';
  const scrape = async () => (await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();

  beforeAll(async () => {
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    const system = startApp('start', {
      DATA_DIR: join(dir, 'data'),
      PORT: String(port),
      DEVNET_PORT: String(await freePort()),
      DEVNET_RETENTION_LEDGERS: '20',
      METRICS_TOKEN: metricsToken,
      LOG_LEVEL: 'warn',
    });
    running.push(system);
    await until(
      'npm start serving /metrics',
      async () => (await fetch(`${api}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).ok,
      150_000,
      [system],
    );

    // The committed configuration, pointed at this system and made quick.
    const config = parse(readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as {
      global: Record<string, string>;
      rule_files: string[];
      scrape_configs: { static_configs: { targets: string[] }[]; authorization: { credentials_file: string } }[];
    };
    config.global = { ...config.global, scrape_interval: '1s', evaluation_interval: '1s' };
    config.rule_files = config.rule_files.map((f) => join(PROMETHEUS_DIR, f));
    config.scrape_configs[0].static_configs = [{ targets: [`127.0.0.1:${port}`] }];
    writeFileSync(join(dir, 'metrics-token'), metricsToken, { mode: 0o600 });
    config.scrape_configs[0].authorization.credentials_file = join(dir, 'metrics-token');
    writeFileSync(join(dir, 'prometheus.yml'), stringify(config));
    const promPort = await freePort();
    prometheus = `http://127.0.0.1:${promPort}`;
    const server = startProcess(
      'prometheus',
      prometheusTool('prometheus'),
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'tsdb')}`, `--web.listen-address=127.0.0.1:${promPort}`],
      {},
    );
    running.push(server);
    await until('Prometheus ready', async () => (await fetch(`${prometheus}/-/ready`)).ok, 60_000, [server]);
  });

  afterAll(async () => {
    for (const app of running.reverse()) await app.stop(30_000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('fires IndexerRetentionGap when the indexer halts on a retention gap, and nothing else about the indexer', async () => {
    const firing = async () => {
      const res = (await (await fetch(`${prometheus}/api/v1/alerts`)).json()) as { data: { alerts: PromAlert[] } };
      return res.data.alerts.filter((a) => a.state === 'firing');
    };
    const alerts = await until(
      'IndexerRetentionGap firing in Prometheus',
      async () => {
        const now = await firing();
        return now.some((a) => a.labels.alertname === 'IndexerRetentionGap') && now;
      },
      90_000,
      running,
    );
    expect(alerts.find((a) => a.labels.alertname === 'IndexerRetentionGap')!.labels).toEqual({
      alertname: 'IndexerRetentionGap',
      network_id: '9',
      severity: 'critical',
    });
    // The halt is a retention gap, not another halt; the scrape itself works.
    expect(alerts.map((a) => a.labels.alertname)).not.toContain('IndexerHalted');
    expect(alerts.map((a) => a.labels.alertname)).not.toContain('DobTargetDown');
    const health = (await (await fetch(`${api}/health`)).json()) as { components: Record<string, { details?: unknown }> };
    expect(JSON.stringify(health.components.indexer_9)).toContain('halted');
  });

  it('alert rules: every series they read (besides their own recordings and `up`) is exported by /metrics', async () => {
    const exported = exportedSeries(await scrape());
    const rules = parse(readFileSync(join(PROMETHEUS_DIR, 'rules.yml'), 'utf8')) as { groups: { rules: { expr: string }[] }[] };
    const read = new Set(rules.groups.flatMap((g) => g.rules.flatMap((r) => seriesOfQuery(r.expr))));
    const missing = [...read].filter((s) => !s.startsWith('dob:') && s !== 'up' && !exported.has(s));
    expect(missing).toEqual([]);
    expect(read.has('indexer_halted') && read.has('lease_changes_total') && read.has('webhooks_inactive')).toBe(true);
  });

  it("dashboard: every query names series the system's /metrics exports, and Prometheus accepts every query", async () => {
    const exported = exportedSeries(await scrape());
    const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: { title: string; targets?: { expr: string }[] }[] };
    const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    expect(queries.length).toBeGreaterThan(15);
    const missing = queries.flatMap((q) =>
      seriesOfQuery(q.expr)
        .filter((s) => !exported.has(s))
        .map((s) => `${q.panel}: ${s}`),
    );
    expect(missing).toEqual([]);
    for (const q of queries) {
      // Grafana's own variable, given a value as Grafana would.
      const expr = q.expr.replaceAll('$__rate_interval', '1m');
      const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
      expect({ panel: q.panel, status: res.status }).toEqual({ panel: q.panel, status: 200 });
    }
  });
});
