/**
 * Component health for GET /health. Each component (event store, projections, indexer per network, devnet, …)
 * registers a check; the system is ready only when every component is up and ready — e.g. projections report
 * ready only once they have caught up with the event store.
 */
export interface ComponentHealth {
  readonly status: 'up' | 'down';
  /** Up but not yet able to serve correct answers (catching up, halted with an alarm, …). */
  readonly ready: boolean;
  /**
   * Up and not in the way of serving, but failing at something it feeds (e.g. the Kafka relay while the broker is
   * away: it retries and catches up later). The system stays ready and reports `degraded`.
   */
  readonly degraded?: boolean;
  /**
   * Up, ready to take over, and doing none of the work right now: another instance holds every lease this one
   * competes for. The system reports `standby` (200), so an operator can tell it from the instance that works.
   */
  readonly standby?: boolean;
  /** While not ready: what it waits for, in an operator's words ("the devnet at …", "projection pools: 120 events behind"). */
  readonly waitingFor?: string;
  readonly details?: Record<string, unknown>;
}

export type HealthCheck = () => Promise<ComponentHealth>;

/** GET /health's status code: 200 while serving correct answers (ready, or ready and degraded), else 503. */
export function healthHttpStatus(report: { readonly status: HealthReport['status'] }): 200 | 503 {
  return report.status === 'ready' || report.status === 'degraded' || report.status === 'standby' ? 200 : 503;
}

export interface HealthReport {
  /** `degraded`: ready (serving), but some component reports degraded. `standby`: ready, and a component stands by. */
  readonly status: 'ready' | 'degraded' | 'standby' | 'starting' | 'down';
  /** One line per component that is down, not ready or degraded: `<component>: <what it waits for>`. */
  readonly waiting_for: string[];
  readonly components: Record<string, ComponentHealth>;
}

export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();

  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }

  async report(timeoutMs = 2000): Promise<HealthReport> {
    const entries = await Promise.all([...this.checks].map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const));
    const components = Object.fromEntries(entries);
    const all = Object.values(components);
    const status = all.some((c) => c.status === 'down')
      ? 'down'
      : all.length > 0 && all.every((c) => c.ready)
        ? all.some((c) => c.degraded)
          ? 'degraded'
          : all.some((c) => c.standby)
            ? 'standby'
            : 'ready'
        : 'starting';
    // Degraded components are listed too: which optional server is away is what an operator asks first.
    const waiting = entries.filter(([, c]) => c.status === 'down' || !c.ready || c.degraded).map(([name, c]) => `${name}: ${describe(c)}`);
    return { status, waiting_for: waiting, components };
  }
}

function describe(c: ComponentHealth): string {
  if (c.status === 'down') return `down (${String(c.details?.error ?? c.waitingFor ?? 'failing')})`;
  if (!c.ready) return c.waitingFor ?? 'not ready';
  return `degraded${c.waitingFor ? ` (${c.waitingFor})` : ''}`;
}

async function runCheck(check: HealthCheck, timeoutMs: number): Promise<ComponentHealth> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check(),
      new Promise<ComponentHealth>((resolve) => {
        timer = setTimeout(() => resolve({ status: 'down', ready: false, details: { error: `no answer within ${timeoutMs} ms` } }), timeoutMs);
      }),
    ]);
  } catch (e) {
    return { status: 'down', ready: false, details: { error: (e as Error).message } };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A component named "startup" that reports what the app is doing before its real components exist (waiting for
 * the devnet, opening storage), so /health says it even then; `done()` marks it ready.
 */
export function trackStartup(health: HealthRegistry): { waitFor(what: string): void; done(): void } {
  let waiting: string | null = 'starting';
  health.register('startup', async () => (waiting === null ? { status: 'up', ready: true } : { status: 'up', ready: false, waitingFor: waiting }));
  return {
    waitFor: (what) => {
      waiting = what;
    },
    done: () => {
      waiting = null;
    },
  };
}
