import { DependencyWatch } from './dependency-watch';
import { createLogger, type Logger } from './logger';
import { ServiceMetrics } from './metrics';
import { startMetricsServer } from './metrics-server';

export interface AppObservability {
  readonly log: Logger;
  readonly metrics: ServiceMetrics;
  /** The servers this app depends on: /health per server, outages logged and counted (dependency_up, dependency_outages_total). */
  readonly dependencies: DependencyWatch;
  close(): Promise<void>;
}

/**
 * Logs and metrics of an app running alone: a JSON logger at LOG_LEVEL and a metrics registry, served on
 * METRICS_PORT (/metrics, /health/live) when the app has no HTTP server of its own.
 */
export async function startAppObservability(options: {
  readonly app: string;
  readonly level?: string;
  readonly metricsPort?: number;
}): Promise<AppObservability> {
  const log = createLogger({ app: options.app, level: options.level });
  const metrics = new ServiceMetrics({ app: options.app });
  const server = options.metricsPort === undefined ? undefined : await startMetricsServer(metrics, options.metricsPort);
  if (server) log.info({ port: server.port }, 'metrics at /metrics, liveness at /health/live');
  const dependencies = new DependencyWatch(log, metrics);
  return {
    log,
    metrics,
    dependencies,
    close: async () => {
      dependencies.close();
      await server?.close();
    },
  };
}
