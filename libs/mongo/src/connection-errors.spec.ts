import { MongoServerError } from 'mongodb';
import { isMongoConnectionError, toMongoDependencyError } from './connection-errors';

const serverError = (message: string) => new MongoServerError({ message, code: 1 });

describe('isMongoConnectionError', () => {
  it("counts FerretDB's PostgreSQL away (a restart's SQLSTATE 57P01, a connection exception, no connection) as the server away", () => {
    for (const message of [
      '[msg_find.go:344 handler.handleMaxTimeMSError] [query_iterator.go:92 postgresql.(*queryIterator).Next] FATAL: terminating connection due to administrator command (SQLSTATE 57P01)',
      '[msg_ping.go:55 handler.(*Handler).MsgPing] FATAL: the database system is starting up (SQLSTATE 57P03)',
      'unexpected EOF (SQLSTATE 08006)',
      'failed to connect to `host=127.0.0.1 user=postgres database=ferretdb`: dial error (dial tcp 127.0.0.1:5432: connect: connection refused)',
    ]) {
      expect({ message, away: isMongoConnectionError(serverError(message)) }).toEqual({ message, away: true });
    }
    expect(toMongoDependencyError(serverError('x (SQLSTATE 57P01)'))).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      details: { dependency: 'mongodb' },
    });
  });

  it("keeps other server errors the caller's (a duplicate key, a bad query, another SQLSTATE)", () => {
    for (const message of ['E11000 duplicate key error', 'unknown operator: $foo', 'division by zero (SQLSTATE 22012)']) {
      expect(isMongoConnectionError(serverError(message))).toBe(false);
    }
  });
});
