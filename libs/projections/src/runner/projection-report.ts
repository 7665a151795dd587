import { comparePositions, positionToString as formatPosition, type EventStoreStats, type GlobalPosition } from '@dob/event-store';
import type { ProjectionHeader, ProjectionSlot, ProjectionStatus } from '../projection';
import type { ProjectionFault, SlotState } from '../read-model-store.port';

export interface SlotReport {
  readonly slot: ProjectionSlot;
  readonly status: ProjectionStatus;
  /** Serialized GlobalPosition of the checkpoint (`commit:prepare`). */
  readonly position: string;
  readonly eventsApplied: number;
  /** Events of this projection's types not yet applied (0 when the checkpoint is at the head). */
  readonly lag: number;
  readonly fault: ProjectionFault | null;
  readonly updatedAt: Date;
}

export interface ProjectionReport {
  readonly name: string;
  /** Version of the definition this process runs. */
  readonly definitionVersion: number;
  /** The slot queries read (null before the first start). */
  readonly active: SlotReport | null;
  /** A side-by-side build in progress, if any. */
  readonly building: SlotReport | null;
  /** True when this process follows the active slot and has read everything committed at least once. */
  readonly caughtUp: boolean;
  /** Several processes (leases): whether this process owns the projection now or stands by. Absent in one process. */
  readonly role?: 'owner' | 'standby';
}

/** Events of the definition's types in the store now: the "count" half of lag (the head is the other half). */
export function matchingEvents(def: ProjectionHeader, stats: EventStoreStats): number {
  if (def.eventTypes.length === 0) return stats.events;
  return def.eventTypes.reduce((n, t) => n + (stats.byType[t] ?? 0), 0);
}

/**
 * Lag = events behind the head. A checkpoint at or past headPosition() is 0 behind; otherwise the store's count of
 * matching events minus those the slot applied (every slot starts at START, so what it applied is a prefix).
 */
export function slotReport(state: SlotState, head: GlobalPosition, matching: number): SlotReport {
  const atHead = comparePositions(state.position, head) >= 0;
  return {
    slot: state.slot,
    status: state.status,
    position: formatPosition(state.position),
    eventsApplied: state.eventsApplied,
    lag: atHead ? 0 : Math.max(0, matching - state.eventsApplied),
    fault: state.fault,
    updatedAt: state.updatedAt,
  };
}
