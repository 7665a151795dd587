import { eventTypeCountsProjection, type ProjectionDefinition } from '@dob/projections';
import { readModelProjections } from './projections';

/**
 * Every projection the projector and the ops CLI run. Add yours here (one import + one entry); names must be
 * unique and safe identifiers, and bumping a version makes the runner build it blue/green on the next start.
 * It lives beside the read models (not in libs/projections) so this lib may use the engine's code without a
 * require cycle.
 */
export const projectionRegistry: ProjectionDefinition[] = [eventTypeCountsProjection, ...readModelProjections];
