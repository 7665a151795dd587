import type { Type } from '@nestjs/common';
import type { ReadQueries } from '@dob/read-models';
import { queryHandler, type MessageClass, type UseCase } from './message-handler';

/** The read models' query services the host composed (createReadQueries from @dob/read-models). */
export const READ_QUERIES = Symbol('READ_QUERIES');

/** A read area's query handler (pools, marketplace, portfolio): one query service call, which keeps the caching, resolution and shaping. */
export const readHandler = <M>(message: MessageClass<M>, useCase: UseCase<ReadQueries, M>): Type => queryHandler(message, READ_QUERIES, useCase);
