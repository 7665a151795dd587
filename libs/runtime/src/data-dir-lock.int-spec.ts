import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLock } from './data-dir-lock';

const child = join(__dirname, 'testing', 'lock-child.ts');
// A new PID namespace makes the child pid 1 every time, exactly like a container's entrypoint after a restart.
const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0;

function runInOwnPidNamespace(dataDir: string): { out: string; signal: NodeJS.Signals | null; status: number | null } {
  const r = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, '-r', join(__dirname, '../../../scripts/register.js'), child, dataDir], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { out: r.stdout.trim(), signal: r.signal, status: r.status };
}

describe('data dir lock across a container-style restart (real PID namespaces)', () => {
  (canUnshare ? it : it.skip)('a process killed -9 as pid 1 does not lock out the next pid 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lock-ns-'));
    const first = runInOwnPidNamespace(dir);
    expect(first.out).toBe('locked 1');
    expect(readLock(dir)?.pid).toBe(1); // left behind by the kill

    const second = runInOwnPidNamespace(dir);
    expect(second.out).toBe('locked 1');
  });
});
