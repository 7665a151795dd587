import type { Command } from 'commander';
import { DataDirLockedError, inspectDataDirLock, loadAppConfig, removeDataDirLock } from '@dob/runtime';
import { OpsError } from '../ops-context';

/**
 * The embedded data folder's LOCK (libs/runtime data-dir-lock.ts): who holds it and whether that holder still
 * runs; `unlock --force` removes a LOCK the lock's own checks cannot prove stale (e.g. a holder on another host
 * whose heartbeat is still fresh because its clock is off).
 */
export function registerDataDirCommands(program: Command): void {
  const dataDir = program.command('data-dir').description('the embedded data folder (DATA_DIR) and its LOCK');

  dataDir
    .command('status')
    .description('who holds the data folder, and whether that process still runs')
    .action(() => {
      const dir = loadAppConfig('ops').DATA_DIR;
      const found = inspectDataDirLock(dir);
      if (!found) return console.log(`${dir}: not locked`);
      console.log(`${dir}: ${found.verdict.held ? 'locked' : 'stale LOCK'}, ${found.verdict.why}`);
      console.log(JSON.stringify(found.holder));
    });

  dataDir
    .command('unlock')
    .description('remove a stale LOCK (refused while its holder runs, unless --force)')
    .option('--force', 'remove it even if its holder looks alive')
    .action((opts: { force?: boolean }) => {
      const dir = loadAppConfig('ops').DATA_DIR;
      try {
        const removed = removeDataDirLock(dir, opts.force === true);
        console.log(removed ? `${dir}: LOCK removed (${removed.why})` : `${dir}: not locked`);
      } catch (e) {
        if (e instanceof DataDirLockedError) throw new OpsError(e.message);
        throw e;
      }
    });
}
