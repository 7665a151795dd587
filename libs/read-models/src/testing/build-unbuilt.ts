import type { ProjectionDefinition, ProjectionRunner, ReadModelStore } from '@dob/projections';

/**
 * Blue/green builds, one projection after another, of every definition not yet built: a projection with no serving
 * slot, or with an unfinished build (resumed from its checkpoint). What a process killed mid-rebuild runs again.
 */
export async function buildUnbuilt(runner: ProjectionRunner, store: ReadModelStore, definitions: readonly ProjectionDefinition[]): Promise<void> {
  for (const def of definitions) {
    const states = await store.states(def.name);
    const serving = states.some((s) => s.active);
    const building = states.some((s) => !s.active && s.status === 'rebuilding');
    if (!serving || building) await runner.rebuild(def.name);
  }
}
