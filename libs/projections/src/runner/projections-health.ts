import type { ProjectionHeader } from '../projection';
import type { ProjectionRunner } from './projection-runner';

/** The runtime's ComponentHealth shape (libs/runtime health.ts), kept structural so this lib needs no runtime. */
export interface ProjectionsHealth {
  readonly status: 'up' | 'down';
  readonly ready: boolean;
  readonly standby?: boolean;
  readonly waitingFor?: string;
  readonly details: Record<string, unknown>;
}

/** How `waitingFor` begins when the only thing wrong is lag (what tolerateBriefLag forgives for a while). */
const CATCHING_UP = 'catching up';

/**
 * Health of the registry's projections for /health. `runs`: this process runs them (the projector, npm start) —
 * ready once it has caught up; otherwise (the API alone) it only reads their checkpoints — ready when every
 * projection has an active slot with no lag. A faulted projection is down: its read model stops at a poison event.
 * A runner holding none of its projections' leases reports `standby`.
 */
export async function projectionsHealth(runner: ProjectionRunner<ProjectionHeader>, o: { runs: boolean }): Promise<ProjectionsHealth> {
  const report = await runner.status();
  const faulted = report.filter((p) => p.active?.status === 'faulted').map((p) => p.name);
  const missing = report.filter((p) => p.active === null).map((p) => p.name);
  const behind = report.filter((p) => p.active !== null && p.active.lag > 0).map((p) => `${p.name} ${p.active!.lag} events behind`);
  const ready = o.runs ? runner.isCaughtUp() : missing.length === 0 && behind.length === 0;
  // A process that runs projections but owns none of their leases is a standby: say so, not "ready" (issue 31).
  const standby = o.runs && report.length > 0 && report.every((p) => p.role === 'standby');
  const waiting = faulted.length
    ? `faulted: ${faulted.join(', ')} (npm run ops -- projections retry <name>)`
    : missing.length
      ? `not built yet: ${missing.join(', ')}${o.runs ? '' : ' (is the projector running?)'}`
      : behind.length
        ? `${CATCHING_UP}: ${behind.join(', ')}`
        : CATCHING_UP;
  return {
    status: faulted.length ? 'down' : 'up',
    ready: ready && faulted.length === 0,
    ...(standby ? { standby: true } : {}),
    ...(ready && faulted.length === 0 ? {} : { waitingFor: waiting }),
    details: Object.fromEntries(report.map((p) => [p.name, o.runs ? p : p.active])),
  };
}

/**
 * The API alone under a steady stream of events: every new event leaves the read models a few events behind until
 * the projector applies it (tens of milliseconds), so a health that is not ready on any lag flaps, and a load
 * balancer pulls healthy instances out of rotation (issue 31: `catching up: 2 events behind` on /health under the
 * fault suite's chain load). Once ready, a lag is tolerated for `graceMs` of consecutive observations; a lag that
 * lasts longer with no event applied meanwhile (a stopped projector), a faulted or unbuilt projection, and any lag
 * before the first ready answer (start-up, a rebuild) are reported at once.
 */
export function tolerateBriefLag(check: () => Promise<ProjectionsHealth>, graceMs: number, now: () => number = Date.now): () => Promise<ProjectionsHealth> {
  let wasReady = false;
  let behindSince: number | null = null;
  let lastApplied = -1;
  return async () => {
    const h = await check();
    const applied = eventsApplied(h);
    const moved = applied > lastApplied;
    lastApplied = applied;
    if (h.ready) {
      wasReady = true;
      behindSince = null;
      return h;
    }
    const lagOnly = h.status === 'up' && (h.waitingFor ?? '').startsWith(CATCHING_UP);
    if (!lagOnly || !wasReady) return h;
    // The grace counts from the last progress: a projector applying a burst (a chain backlog after an RPC outage,
    // steady trading) is behind at every sample yet healthy; one that applies nothing for graceMs is not.
    if (moved || behindSince === null) behindSince = now();
    if (now() - behindSince >= graceMs) {
      wasReady = false; // behind for longer than a projector's apply: ready again only once caught up
      return h;
    }
    return { status: h.status, ready: true, ...(h.standby ? { standby: true } : {}), details: h.details };
  };
}

/** Events applied by the projections a health reports (its details' active slots), to tell progress from a stall. */
function eventsApplied(h: ProjectionsHealth): number {
  let n = 0;
  for (const slot of Object.values(h.details)) {
    const applied = (slot as { eventsApplied?: unknown } | null)?.eventsApplied;
    if (typeof applied === 'number') n += applied;
  }
  return n;
}
