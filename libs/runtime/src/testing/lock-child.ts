import { acquireDataDirLock } from '../data-dir-lock';

/**
 * Test child (data-dir-lock.int-spec): takes the lock of argv[2], prints its pid, then dies by SIGKILL like an
 * OOM-killed container would — leaving its LOCK behind.
 */
try {
  acquireDataDirLock(process.argv[2]!);
  process.stdout.write(`locked ${process.pid}\n`, () => process.kill(process.pid, 'SIGKILL'));
} catch (e) {
  process.stdout.write(`refused ${(e as Error).message}\n`, () => process.exit(3));
}
