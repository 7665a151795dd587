import { AppError } from '@dob/domain';
import { MongoNetworkError, MongoNotConnectedError, MongoServerClosedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

/**
 * The driver's errors for "no server to talk to": none selectable within serverSelectionTimeoutMS (it is down,
 * restarting, or the primary stepped down and none was elected yet), a socket that failed or timed out, a client or
 * server closed under the operation. Server-reported errors (a duplicate key, a bad query) are the caller's.
 * See the driver's error hierarchy: https://mongodb.github.io/node-mongodb-native/6.22/classes/MongoError.html.
 */
export function isMongoConnectionError(e: unknown): boolean {
  return (
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNetworkError || // includes MongoNetworkTimeoutError
    e instanceof MongoNotConnectedError ||
    e instanceof MongoServerClosedError ||
    e instanceof MongoTopologyClosedError
  );
}

/** The error a caller sees: a lost server becomes a 503 naming MongoDB; anything else is unchanged. */
export function toMongoDependencyError(e: unknown): unknown {
  return isMongoConnectionError(e) ? AppError.dependencyUnavailable('mongodb', e) : e;
}
