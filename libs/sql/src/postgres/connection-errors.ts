import { AppError } from '@dob/domain';

/**
 * Errors that mean "the server cannot be reached or ended the session", as node-postgres reports them. Some carry
 * a SQLSTATE (class 08 connection_exception; 57P01–57P03 admin/crash shutdown, cannot connect now — the server
 * restarting), some a Node socket code, and pg/pg-pool's own have neither, only their fixed message
 * (pg lib/client.js, pg-pool index.js). Every other error — one the server reported about a statement — is the
 * caller's to handle and passes through unchanged.
 * See https://www.postgresql.org/docs/current/errcodes-appendix.html.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
const SERVER_GONE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

export function isConnectionError(e: unknown): boolean {
  // Shapes, not `instanceof`: socket errors are made by Node's own realm (a jest VM context has another Error).
  if (typeof e !== 'object' || e === null) return false;
  const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_GONE_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  // An AggregateError (a host name resolving to several addresses, all refused) carries the socket codes inside.
  if (Array.isArray(errors) && errors.some(isConnectionError)) return true;
  return typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.startsWith(m));
}

/** The error a caller sees: a lost connection becomes a 503 naming PostgreSQL; anything else is unchanged. */
export function toDependencyError(e: unknown): unknown {
  return isConnectionError(e) ? AppError.dependencyUnavailable('postgresql', e) : e;
}
