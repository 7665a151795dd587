import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

describe('SlotWorker catching up with batches reduced ahead', () => {
  it('ends failed, and the process lives on, when a commit fails while the next page is still being read', () => {
    // In a process of its own: under Jest an unhandled rejection goes unnoticed; in the apps it ends the process.
    const child = spawnSync(
      process.execPath,
      ['-r', join(__dirname, '../../../../scripts/register.js'), join(__dirname, '../testing/failing-commit-child.ts')],
      {
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual({ end: 'failed', commits: [10, 10], checkpoint: '9' });
  });
});
