import { assertIdentifier } from '@dob/sql';
import type { ProjectionSlot, ProjectionTables } from '../projection';

/**
 * Physical tables are named per version and rebuild generation so builds sit side by side:
 * `rm_<name>_v<version>_<table>` (generation 0) or `rm_<name>_v<version>_g<generation>_<table>`.
 * Queries never use these: they read the stable view `rm_<name>_<table>`, re-pointed atomically on a switch.
 */
export function physicalTableName(slot: ProjectionSlot, table: string): string {
  const gen = slot.generation === 0 ? '' : `_g${slot.generation}`;
  return assertIdentifier(`rm_${slot.name}_v${slot.version}${gen}_${table}`);
}

/** The stable name queries read a projection's table through. */
export function readModelView(projection: string, table: string): string {
  return assertIdentifier(`rm_${projection}_${table}`);
}

export function physicalTables(slot: ProjectionSlot, logical: readonly string[]): ProjectionTables {
  const out: Record<string, string> = {};
  for (const t of logical) out[t] = physicalTableName(slot, t);
  return Object.freeze(out);
}
