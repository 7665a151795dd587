import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { withLedgerLock } from './ledger-lock';

describe('the spend ledger lock', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-lock-'));
    lock = join(dir, 'spending.jsonl.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is held during the section and gone after it, also when the section throws', () => {
    expect(withLedgerLock(lock, () => existsSync(lock))).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(() =>
      withLedgerLock(lock, () => {
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder process is gone', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(lock, JSON.stringify({ pid: dead, host: hostname(), token: 'left-behind' }));
    expect(withLedgerLock(lock, () => 'ran')).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock older than any holder keeps it (a hung holder, or one on another host)', () => {
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: 'elsewhere', token: 'old' }));
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(withLedgerLock(lock, () => 'ran')).toBe('ran');
  });
});
