import type { Logger } from './logger';
import type { ServiceMetrics } from './metrics';

/** The runtime's ComponentHealth shape (libs/runtime health.ts), kept structural so this lib needs no runtime. */
export interface DependencyHealth {
  readonly status: 'up' | 'down';
  readonly ready: boolean;
  readonly degraded?: boolean;
  readonly waitingFor?: string;
  readonly details?: Record<string, unknown>;
}

export interface WatchedDependency {
  /** Answers when the server does (e.g. `SELECT 1`, a Redis PING); rejects or times out when it does not. */
  readonly probe: () => Promise<unknown>;
  /**
   * The app keeps serving correct answers without it (e.g. Redis behind a fail-safe rate limiter): while it is
   * away /health stays 200 and says `degraded`. Otherwise the app reports down (503).
   */
  readonly optional?: boolean;
  /** What the app does meanwhile, for /health (e.g. "rate limits per instance"). */
  readonly meanwhile?: string;
}

/** How often every watched server is probed, so an outage is logged and counted even when nobody asks /health. */
export const DEPENDENCY_PROBE_EVERY_MS = 2000;
/** A probe with no answer within this is a failure. */
export const DEPENDENCY_PROBE_TIMEOUT_MS = 1500;

/**
 * The servers an app depends on (PostgreSQL, MongoDB, Redis, Kafka, the chain's RPC), each probed every couple of
 * seconds and at every /health: /health names the one that is away, an outage is logged at error and its end at
 * warn with the dependency named and how long it lasted, and /metrics carries `dependency_up{dependency}` (1/0)
 * and `dependency_outages_total{dependency}` — what an operator alerts on (issue 31). Anything that sees a server
 * fail between probes (a fail-safe rate limiter) may `report` it at once.
 */
export class DependencyWatch {
  private readonly watched = new Map<string, WatchedDependency>();
  private readonly downSince = new Map<string, number>();
  private readonly lastError = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: Pick<Logger, 'error' | 'warn'>,
    private readonly metrics?: ServiceMetrics,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Starts watching `name`; returns its /health check (register it as a component of the same name). */
  watch(name: string, dependency: WatchedDependency): () => Promise<DependencyHealth> {
    this.watched.set(name, dependency);
    this.metrics?.dependencyUp.set({ dependency: name }, 1);
    this.metrics?.dependencyOutages.inc({ dependency: name }, 0);
    this.timer ??= setInterval(() => void this.probeAll(), DEPENDENCY_PROBE_EVERY_MS).unref();
    return () => this.check(name);
  }

  /** Whether `name` was reachable at its last probe or report. */
  isUp(name: string): boolean {
    return !this.downSince.has(name);
  }

  /** A server seen failing or answering outside the probes; only changes are logged and counted. */
  report(name: string, available: boolean, error?: unknown): void {
    const since = this.downSince.get(name);
    if (!available) {
      this.lastError.set(name, messageOf(error));
      if (since !== undefined) return;
      this.downSince.set(name, this.clock());
      this.metrics?.dependencyUp.set({ dependency: name }, 0);
      this.metrics?.dependencyOutages.inc({ dependency: name });
      this.log.error({ dependency: name, err: messageOf(error) }, `${name} is unavailable`);
    } else if (since !== undefined) {
      this.downSince.delete(name);
      this.metrics?.dependencyUp.set({ dependency: name }, 1);
      this.log.warn({ dependency: name, outage_ms: this.clock() - since }, `${name} is available again after ${this.clock() - since} ms`);
    }
  }

  private async check(name: string): Promise<DependencyHealth> {
    const dependency = this.watched.get(name)!;
    const available = await this.probeOne(name, dependency);
    if (available) return { status: 'up', ready: true };
    const details = { error: this.lastError.get(name), down_since: new Date(this.downSince.get(name) ?? this.clock()).toISOString() };
    const why = `${name} unreachable (${details.error})${dependency.meanwhile ? `; ${dependency.meanwhile}` : ''}`;
    return dependency.optional
      ? { status: 'up', ready: true, degraded: true, waitingFor: why, details }
      : { status: 'down', ready: false, waitingFor: why, details };
  }

  private async probeOne(name: string, dependency: WatchedDependency): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        dependency.probe(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${DEPENDENCY_PROBE_TIMEOUT_MS} ms`)), DEPENDENCY_PROBE_TIMEOUT_MS);
        }),
      ]);
      this.report(name, true);
      return true;
    } catch (e) {
      this.report(name, false, e);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  private async probeAll(): Promise<void> {
    await Promise.all([...this.watched].map(([name, d]) => this.probeOne(name, d)));
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

function messageOf(e: unknown): string {
  if (e === undefined) return 'failing';
  const cause = (e as { cause?: unknown }).cause; // AppError.dependencyUnavailable keeps the driver's error here
  const m = (x: unknown) => (x as { message?: unknown })?.message;
  return String(m(cause) ?? m(e) ?? e);
}
