/** What a MongoDB-protocol server can do that the read-model store cares about. */
export interface MongoCapabilities {
  /** `ferretdb` (FerretDB answers for MongoDB with its own buildInfo field) or `mongodb`. */
  readonly server: 'ferretdb' | 'mongodb';
  /** The MongoDB version the server speaks for (FerretDB reports the version it emulates). */
  readonly version: string;
  /**
   * Multi-document transactions: MongoDB has them on replica sets and sharded clusters only (a standalone server
   * refuses them); FerretDB 1.x has none (`withTransaction` fails on the unknown `autocommit` field).
   */
  readonly transactions: boolean;
  /**
   * One `update` command may carry many updates (a bulkWrite of replaces). Not on FerretDB 1.x: its update handler
   * keeps each update's query open — one PostgreSQL connection each — until the whole command ends
   * (internal/handler/msg_update.go defers every iterator's close to the function's end), and each update's write
   * takes one more connection. A command of as many replaces as its pool has connections (50) waits for a connection
   * that only it could free: the FerretDB locks up for good, every later request waiting in pgxpool's Acquire.
   */
  readonly multiUpdateCommands: boolean;
}

/** Decides capabilities from the `hello` and `buildInfo` replies (kept pure so it is unit-tested). */
export function detectCapabilities(hello: Record<string, unknown>, buildInfo: Record<string, unknown>): MongoCapabilities {
  const ferret = typeof buildInfo.ferretdbVersion === 'string';
  const replicated = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  const sessions = typeof hello.logicalSessionTimeoutMinutes === 'number';
  return {
    server: ferret ? 'ferretdb' : 'mongodb',
    version: String(buildInfo.version ?? 'unknown'),
    transactions: !ferret && replicated && sessions,
    multiUpdateCommands: !ferret,
  };
}
