import { AppError } from '@dob/domain';
import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';

/**
 * FerretDB answers with a server error when its own PostgreSQL is away: the connection ended by a restart
 * ("terminating connection due to administrator command (SQLSTATE 57P01)", 57P02/57P03 likewise), a connection
 * exception (class 08), or none to be had ("failed to connect to `host=…`"). The fault suite saw the first answered
 * as 500 by the MongoDB-backed API while the PostgreSQL under FerretDB restarted.
 */
const FERRETDB_BACKEND_AWAY = /\(SQLSTATE (57P0[1-3]|08[0-9A-Z]{3})\)|failed to connect to `/;

/**
 * The driver's errors for "no server to talk to": none selectable within serverSelectionTimeoutMS (it is down,
 * restarting, or the primary stepped down and none was elected yet), a socket that failed or timed out, a client or
 * server closed under the operation, FerretDB's PostgreSQL away. Other server-reported errors (a duplicate key, a
 * bad query) are the caller's.
 * See the driver's error hierarchy: https://mongodb.github.io/node-mongodb-native/6.22/classes/MongoError.html.
 */
export function isMongoConnectionError(e: unknown): boolean {
  return (
    e instanceof MongoServerSelectionError ||
    e instanceof MongoNetworkError || // includes MongoNetworkTimeoutError
    e instanceof MongoNotConnectedError ||
    e instanceof MongoServerClosedError ||
    e instanceof MongoTopologyClosedError ||
    (e instanceof MongoServerError && FERRETDB_BACKEND_AWAY.test(e.message))
  );
}

/** The error a caller sees: a lost server becomes a 503 naming MongoDB; anything else is unchanged. */
export function toMongoDependencyError(e: unknown): unknown {
  return isMongoConnectionError(e) ? AppError.dependencyUnavailable('mongodb', e) : e;
}
