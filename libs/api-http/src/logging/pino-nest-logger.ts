import type { LoggerService } from '@nestjs/common';
import { currentLogger, type Logger } from '@dob/observability';

/**
 * Nest's LoggerService over pino: `new Logger('ctx').log(…)` anywhere in the app becomes a JSON line with
 * `context`, and — inside a request — the request's `reqId` (the request's child logger, see requestLogContext).
 * Install with `Logger.overrideLogger(new PinoNestLogger(root))` before anything logs.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  /** Nest passes (message, context) or, for errors, (message, stack, context). */
  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', message: unknown, rest: unknown[]): void {
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    const stack = level === 'error' && rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
    const logger = currentLogger(this.root);
    const fields = { ...(context ? { context } : {}), ...(stack ? { stack } : {}) };
    if (message instanceof Error) logger[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) logger[level]({ ...fields, ...message });
    else logger[level](fields, String(message));
  }
}
