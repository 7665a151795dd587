import { AsyncLocalStorage } from 'node:async_hooks';
import pino, { type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs (pino): one JSON object per line on stdout (written synchronously, so nothing is lost on exit), ISO time, the level's name, so
 * nothing in them is a terminal escape and any log shipper parses them. LOG_LEVEL accepts Nest's level names
 * (error, warn, log, debug, verbose — what the config always accepted) and pino's (fatal, info, trace, silent).
 */
const LEVELS: Record<string, pino.LevelWithSilent> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  info: 'info',
  debug: 'debug',
  verbose: 'trace',
  trace: 'trace',
  silent: 'silent',
};

export const LOG_LEVEL_NAMES = Object.keys(LEVELS) as readonly string[];

export interface LoggerOptions {
  /** LOG_LEVEL value; default info. */
  readonly level?: string;
  /** Which process wrote the line (all, api, indexer, …). */
  readonly app?: string;
  /** Where lines go; default stdout. Tests pass a stream to read them back. */
  readonly destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const level = LEVELS[options.level ?? 'info'];
  if (!level) throw new Error(`unknown log level "${options.level}" (one of ${LOG_LEVEL_NAMES.join(', ')})`);
  return pino(
    {
      level,
      base: { app: options.app ?? 'dob', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Never log credentials, even if a caller passes whole headers.
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.secret', '*.signed_xdr'], censor: '[redacted]' },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

/**
 * The logger of the request being served, for code that logs without being handed one (Nest's Logger calls).
 * The API enters it once the body is parsed (a preHandler hook): body parsing resumes in the socket's async context,
 * so a context entered earlier would be lost for requests with a body (fastify/fastify#3570).
 */
export const requestLogContext = new AsyncLocalStorage<Logger>();

export function currentLogger(fallback: Logger): Logger {
  return requestLogContext.getStore() ?? fallback;
}

/** For components that take `log(line)` (projection runner, notifier): each line becomes an info entry. */
export function lineLogger(log: Logger, component: string): (line: string) => void {
  const child = log.child({ component });
  return (line) => child.info(line);
}

/** For components that take `{info, warn, error}(message, fields)` (the indexer's IndexerLogger). */
export function fieldLogger(
  log: Logger,
  component: string,
): {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
} {
  const child = log.child({ component });
  return {
    info: (m, f) => child.info(f ?? {}, m),
    warn: (m, f) => child.warn(f ?? {}, m),
    error: (m, f) => child.error(f ?? {}, m),
  };
}
