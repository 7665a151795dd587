import { ConfigError, loadAppConfig, type AppConfig, type AppName } from './app-config';
import { DataDirLockedError } from './data-dir-lock';

/** Stops what an app started, in reverse order. */
export type StopApp = () => Promise<void>;

/**
 * The frame of every app's main.ts: validated configuration in, a clean stop on SIGINT / SIGTERM out. An operator's
 * mistake (bad or missing variable, a locked data folder, a mismatched shared secret, an unreachable devnet)
 * ends the process with exit 1 and its one-line message; anything else prints its stack.
 */
export function runApp(app: AppName, start: (config: AppConfig) => Promise<StopApp>): void {
  const fail = (e: unknown) => {
    console.error(e instanceof ConfigError || e instanceof DataDirLockedError ? `${app}: ${e.message}` : e);
    process.exit(1);
  };
  let stop: StopApp | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${app}: ${signal}, stopping…`);
    (stop ?? (async () => undefined))().then(() => process.exit(0), fail);
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  Promise.resolve()
    .then(() => start(loadAppConfig(app)))
    .then((s) => {
      stop = s;
    }, fail);
}
