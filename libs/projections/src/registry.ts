import { readModelProjections } from '@dob/read-models';
import { eventTypeCountsProjection } from './event-type-counts.projection';
import type { ProjectionDefinition } from './projection';

/**
 * Every projection the projector and the ops CLI run. Add yours here (one import + one entry); names must be
 * unique and safe identifiers, and bumping a version makes the runner build it blue/green on the next start.
 */
export const projectionRegistry: ProjectionDefinition[] = [eventTypeCountsProjection, ...readModelProjections];
