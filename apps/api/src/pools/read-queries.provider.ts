import type { Provider } from '@nestjs/common';
import type { ReadQueries } from '@dob/read-models';

/** Injection token of the read-side query services (built by the host from its SQL connection). */
export const READ_QUERIES = Symbol('READ_QUERIES');

export interface ReadApiDependencies {
  readonly queries: ReadQueries;
}

export const readQueriesProvider = (deps: ReadApiDependencies): Provider => ({ provide: READ_QUERIES, useValue: deps.queries });
