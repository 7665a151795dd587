import type { GlobalPosition } from '@dob/event-store';
import type { OperatorReplayProgress, OperatorReplayResult, RelayStatus } from '@dob/kafka-relay';
import type { ProjectionReport, ProjectionSlot } from '@dob/projections';

export interface RebuildOutcome {
  readonly from: ProjectionSlot | null;
  readonly to: ProjectionSlot;
  readonly eventsApplied: number;
}

/**
 * What the projection and Kafka commands do, wherever it is done: on the CLI's own connection (PostgreSQL, or a
 * data folder no process holds), or by the running system that holds the folder, through its admin endpoint.
 */
export interface Operations {
  projectionStatus(): Promise<ProjectionReport[]>;
  /**
   * One or more rebuilds in turn; locally as ProjectionRunner.rebuildAll does them (each switch overlapping the next
   * build, READ_MODEL_REBUILD_GROUPS over one read), through a running system one request after another.
   */
  rebuildAll(
    names: readonly string[],
    onProgress: (name: string, p: { applied: number; total: number }) => void,
    onSwitched: (name: string, outcome: RebuildOutcome) => void,
  ): Promise<RebuildOutcome[]>;
  reset(name: string): Promise<void>;
  retry(name: string): Promise<void>;
  kafkaStatus(): Promise<RelayStatus>;
  kafkaReplay(after: GlobalPosition, to: GlobalPosition | undefined, onProgress: (p: OperatorReplayProgress) => void): Promise<OperatorReplayResult>;
}
